package guest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestQemuArgsTopology(t *testing.T) {
	o := &Options{Nodes: 4, CPUs: 8, MemMiB: 1024, Kernel: "vmlinuz"}
	if err := o.normalise(); err != nil {
		t.Fatal(err)
	}
	args := strings.Join(QemuArgs(o, "initrd"), " ")
	for _, want := range []string{
		"-smp 8,sockets=4,cores=2,threads=1",
		"-object memory-backend-ram,id=m3,size=256M -numa node,nodeid=3,cpus=6-7,memdev=m3",
		"-numa dist,src=0,dst=1,val=20", "-numa dist,src=0,dst=3,val=30", "-numa dist,src=2,dst=3,val=20",
		"-accel tcg,thread=multi", "-kernel vmlinuz -initrd initrd",
	} {
		if !strings.Contains(args, want) {
			t.Errorf("QEMU arguments lack %q:\n%s", want, args)
		}
	}
	if strings.Contains(args, "dist,src=1,dst=0") {
		t.Errorf("a distance pair is given twice:\n%s", args)
	}
}

func TestNormalise(t *testing.T) {
	for _, o := range []Options{
		{Nodes: 0}, {Nodes: 9}, {Nodes: 2, CPUs: 3}, {Nodes: 2, MemMiB: 100},
		{Nodes: 2, Balancing: 2}, {Nodes: 2, Env: []string{"NOEQUALS"}}, {Nodes: 2, Env: []string{"A B=1"}},
	} {
		if err := o.normalise(); err == nil {
			t.Errorf("normalise(%+v): no error", o)
		}
	}
	o := Options{Nodes: 2, Balancing: -1}
	if err := o.normalise(); err != nil || o.CPUs != 2 || o.MemMiB != 512 {
		t.Errorf("defaults: %+v, %v", o, err)
	}
}

func TestInitScriptQuotes(t *testing.T) {
	o := &Options{Nodes: 2, Balancing: 0, Prog: "/host/bin/my prog", Args: []string{"a b", "it's", "$HOME"}, Env: []string{"GODEBUG=numa=1,numabind=1", "X=$(reboot)"}}
	s := InitScript(o)
	for _, want := range []string{
		`'/job/my prog' 'a b' 'it'\''s' '$HOME' </dev/null 2>&1`,
		`export GODEBUG='numa=1,numabind=1'`, `export X='$(reboot)'`,
		"echo 0 > /proc/sys/kernel/numa_balancing",
		"echo " + markStart, "poweroff -f",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("init script lacks %q:\n%s", want, s)
		}
	}
	if o.Balancing = -1; strings.Contains(InitScript(o), "numa_balancing") {
		t.Error("the default balancing setting writes numa_balancing")
	}
}

func outArchive(t *testing.T, files map[string]string) string {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, body := range files {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(body))
	}
	tw.Close()
	zw.Close()
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

func TestConsole(t *testing.T) {
	var out bytes.Buffer
	c := newConsole(&out)
	b64 := outArchive(t, map[string]string{"./r/a.txt": "hello\n"})
	in := "[    0.1] booting\r\n" + markStart + "\r\nline one\r\nno newline" + markExit + "7@@\r\n" +
		markOut + "\n" + b64[:10] + "\n" + b64[10:] + "\n" + markOutEnd + "\nreboot: Power down\n"
	if err := c.read(strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	if !c.started || c.exit != 7 || c.panicked {
		t.Errorf("started %v, exit %d, panicked %v", c.started, c.exit, c.panicked)
	}
	if got, want := out.String(), "line one\nno newline\n"; got != want {
		t.Errorf("program output %q, want %q", got, want)
	}
	dir := t.TempDir()
	if err := untar(c.archive.String(), dir); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "r", "a.txt")); err != nil || string(b) != "hello\n" {
		t.Errorf("copied back %q, %v", b, err)
	}

	c = newConsole(&out)
	c.read(strings.NewReader("Kernel panic - not syncing: VFS\n"))
	if c.started || !c.panicked || !strings.Contains(c.tail(), "Kernel panic") {
		t.Errorf("panic before start: started %v panicked %v tail %q", c.started, c.panicked, c.tail())
	}
}

func TestUntarRefusesEscapes(t *testing.T) {
	for _, name := range []string{"../x", "/etc/x", "a/../../x"} {
		if err := untar(outArchive(t, map[string]string{name: "x"}), t.TempDir()); err == nil {
			t.Errorf("untar of %q: no error", name)
		}
	}
}

func TestDistance(t *testing.T) {
	var got []int
	for b := range 4 {
		got = append(got, Distance(1, b))
	}
	if want := []int{20, 10, 20, 30}; !slices.Equal(got, want) {
		t.Errorf("distances from node 1: %v, want %v", got, want)
	}
}

// TestCopyTree: -in copies files and folders with their modes and
// refuses what the guest could not hold as a plain file (a link).
func TestCopyTree(t *testing.T) {
	src, dst := t.TempDir(), filepath.Join(t.TempDir(), "in")
	os.MkdirAll(filepath.Join(src, "sub"), 0o755)
	os.WriteFile(filepath.Join(src, "bin.test"), []byte("x"), 0o755)
	os.WriteFile(filepath.Join(src, "sub", "data"), []byte("yz"), 0o644)
	if err := copyTree(src, dst); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dst, "bin.test")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("bin.test: %v, %v; want mode 0755", fi, err)
	}
	if b, err := os.ReadFile(filepath.Join(dst, "sub", "data")); err != nil || string(b) != "yz" {
		t.Errorf("sub/data: %q, %v", b, err)
	}
	if s := InitScript(&Options{Nodes: 2, Balancing: -1, Prog: "p", InDir: src}); !strings.Contains(s, "export IN="+guestIn) {
		t.Errorf("init script with -in does not export IN:\n%s", s)
	}
	os.Symlink("/etc/passwd", filepath.Join(src, "link"))
	if err := copyTree(src, filepath.Join(t.TempDir(), "in")); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("copyTree over a symbolic link: %v, want it refused", err)
	}
}
