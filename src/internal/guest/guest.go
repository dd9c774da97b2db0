// Package guest runs a program in a multi-node NUMA guest: a Linux
// kernel with NUMA built in, booted under QEMU's software emulation
// (TCG) with an ACPI SRAT/SLIT topology of N nodes, from an initramfs
// that holds busybox, numactl and the program.
//
// Inside the guest everything NUMA is real: sysfs nodes and distances,
// mbind and numa_maps, the kernel's NUMA balancer. Timing is not: an
// emulated machine runs memory and SIMD code tens of times slower than
// the host, and remote memory costs the same as local memory, so what
// runs here can check topology, placement and kernel counters, never
// speed (../shared/reference/numa-guest.md, docs/guest.md).
//
// The program's output comes back over the serial console between
// markers, followed by its exit status and a base64 tar of what it
// wrote under $OUT.
package guest

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Options describe one guest run.
type Options struct {
	Nodes     int           // NUMA nodes, 1 to 8
	CPUs      int           // vCPUs in all, a multiple of Nodes; 0 = one per node
	MemMiB    int           // guest memory in all, split evenly; 0 = 256 MiB per node
	Balancing int           // kernel.numa_balancing: 0 or 1; -1 = the kernel's default (1)
	Timeout   time.Duration // of the whole run, boot included; 0 = 10 minutes

	Prog string   // a static binary built on the host
	Args []string // its arguments
	Env  []string // its environment (K=V), besides OUT, HOME, TMPDIR and PATH

	OutDir string // where what Prog writes under $OUT lands; "" = dropped
	// InDir is a folder of the host copied into the guest (into RAM,
	// like everything there) as $IN, for example prebuilt test
	// binaries (schedlab bench -build-only); "" = none.
	InDir string

	Kernel string // the guest kernel (vmlinuz)

	Stdout io.Writer // Prog's output, streamed (os.Stdout if nil)
	Log    io.Writer // progress lines and the console's tail on failure (os.Stderr if nil)
}

// Markers on the serial console. The init script prints them; nothing
// else in the guest can.
const (
	markStart  = "@@schedlab-vm-start@@"
	markExit   = "@@schedlab-vm-exit "
	markOut    = "@@schedlab-vm-out@@"
	markOutEnd = "@@schedlab-vm-out-end@@"
)

// ErrNoProgram is returned, wrapped, when the guest ended before the
// program ran: a boot failure or a kernel panic.
var ErrNoProgram = errors.New("the guest did not run the program")

// Tools are the host commands a guest run needs, with the Debian
// package of each (scripts/guest-setup.sh installs them).
var Tools = []struct{ Cmd, Package string }{
	{"qemu-system-x86_64", "qemu-system-x86"},
	{"busybox", "busybox-static"},
	{"cpio", "cpio"},
	{"numactl", "numactl"},
}

// numactlLibs are the shared objects numactl needs in the guest.
var numactlLibs = []string{
	"/lib/x86_64-linux-gnu/libnuma.so.1",
	"/lib/x86_64-linux-gnu/libc.so.6",
	"/lib64/ld-linux-x86-64.so.2",
}

func (o *Options) normalise() error {
	if o.Nodes < 1 || o.Nodes > 8 {
		return fmt.Errorf("-nodes %d: want 1 to 8", o.Nodes)
	}
	if o.CPUs == 0 {
		o.CPUs = o.Nodes
	}
	if o.CPUs < o.Nodes || o.CPUs%o.Nodes != 0 || o.CPUs > 64 {
		return fmt.Errorf("-cpus %d: want a multiple of -nodes %d, at most 64", o.CPUs, o.Nodes)
	}
	if o.MemMiB == 0 {
		o.MemMiB = 256 * o.Nodes
	}
	if o.MemMiB/o.Nodes < 64 {
		return fmt.Errorf("-mem %d: want at least 64 MiB per node", o.MemMiB)
	}
	if o.Balancing < -1 || o.Balancing > 1 {
		return fmt.Errorf("-balancing %d: want 0 or 1", o.Balancing)
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Minute
	}
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Log == nil {
		o.Log = os.Stderr
	}
	for _, kv := range o.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" || strings.ContainsAny(k, " \t\n'\"$") {
			return fmt.Errorf("environment entry %q: want NAME=VALUE", kv)
		}
	}
	return nil
}

// Check reports the first missing host tool or file in one line.
func Check(kernel string) error {
	for _, t := range Tools {
		if _, err := exec.LookPath(t.Cmd); err != nil {
			return fmt.Errorf("%s is missing (Debian package %s; scripts/guest-setup.sh installs it)", t.Cmd, t.Package)
		}
	}
	for _, f := range numactlLibs {
		if _, err := os.Stat(f); err != nil {
			return fmt.Errorf("%s is missing (numactl's libraries)", f)
		}
	}
	if _, err := os.Stat(kernel); err != nil {
		return fmt.Errorf("no guest kernel at %s (scripts/guest-setup.sh fetches Debian's cloud kernel)", kernel)
	}
	return nil
}

// Distance is the SLIT distance between nodes a and b: 10 to itself, 20
// to its neighbours in node order, 30 to the others, so that a 4-node
// guest has three distinct distances as a real 4-socket machine may.
func Distance(a, b int) int {
	switch d := a - b; {
	case d == 0:
		return 10
	case d == 1 || d == -1:
		return 20
	}
	return 30
}

// QemuArgs is the QEMU command line for o, with initrd as the initramfs.
func QemuArgs(o *Options, initrd string) []string {
	per := o.CPUs / o.Nodes
	args := []string{
		"-accel", "tcg,thread=multi", "-cpu", "max", "-machine", "pc",
		"-nodefaults", "-no-user-config", "-no-reboot", "-display", "none",
		"-m", strconv.Itoa(o.MemMiB / o.Nodes * o.Nodes),
		"-smp", fmt.Sprintf("%d,sockets=%d,cores=%d,threads=1", o.CPUs, o.Nodes, per),
	}
	for n := 0; n < o.Nodes; n++ {
		cpus := strconv.Itoa(n * per)
		if per > 1 {
			cpus += "-" + strconv.Itoa(n*per+per-1)
		}
		args = append(args,
			"-object", fmt.Sprintf("memory-backend-ram,id=m%d,size=%dM", n, o.MemMiB/o.Nodes),
			"-numa", fmt.Sprintf("node,nodeid=%d,cpus=%s,memdev=m%d", n, cpus, n))
	}
	for a := 0; a < o.Nodes; a++ {
		for b := a + 1; b < o.Nodes; b++ {
			args = append(args, "-numa", fmt.Sprintf("dist,src=%d,dst=%d,val=%d", a, b, Distance(a, b)))
		}
	}
	return append(args, "-kernel", o.Kernel, "-initrd", initrd,
		"-append", "console=ttyS0 panic=-1 quiet loglevel=1", "-serial", "stdio")
}

// shellQuote quotes s for the init script.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// jobPath is where the program lies in the guest: under its own name,
// which a multi-call binary such as busybox needs.
func jobPath(o *Options) string {
	return "/job/" + filepath.Base(o.Prog)
}

// InitScript is the guest's /init: mount the kernel's file systems, set
// the balancer, run the program between markers and send $OUT back.
func InitScript(o *Options) string {
	var b strings.Builder
	b.WriteString("#!/bin/busybox sh\n")
	b.WriteString("/bin/busybox --install -s /bin\nexport PATH=/bin:/job\n")
	b.WriteString("mount -t proc proc /proc\nmount -t sysfs sys /sys\nmount -t devtmpfs dev /dev\nmount -t tmpfs tmp /tmp\n")
	b.WriteString("mkdir -p /tmp/out /tmp/home\n")
	if o.Balancing >= 0 {
		fmt.Fprintf(&b, "echo %d > /proc/sys/kernel/numa_balancing\n", o.Balancing)
	}
	b.WriteString("cd /tmp/home\n")
	// SCHEDLAB_VM is physical.GuestEnv: schedlab doctor says it is
	// emulated.
	b.WriteString("export OUT=/tmp/out HOME=/tmp/home TMPDIR=/tmp SCHEDLAB_VM='QEMU TCG'\n")
	if o.InDir != "" {
		b.WriteString("export IN=" + guestIn + "\n")
	}
	for _, kv := range o.Env {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&b, "export %s=%s\n", k, shellQuote(v))
	}
	b.WriteString("echo " + markStart + "\n")
	b.WriteString(shellQuote(jobPath(o)))
	for _, a := range o.Args {
		b.WriteString(" " + shellQuote(a))
	}
	b.WriteString(" </dev/null 2>&1\nrc=$?\n")
	b.WriteString("echo \"" + markExit + "$rc@@\"\n")
	b.WriteString("echo " + markOut + "\n(cd /tmp/out && tar -c . | gzip | base64)\necho " + markOutEnd + "\n")
	b.WriteString("poweroff -f\n")
	return b.String()
}

// buildInitrd writes the initramfs for o into dir and returns its path:
// one uncompressed newc cpio of busybox, numactl and its libraries, the
// program and /init.
func buildInitrd(ctx context.Context, o *Options, dir string) (string, error) {
	root := filepath.Join(dir, "root")
	for _, d := range []string{"bin", "job", "proc", "sys", "dev", "tmp", "lib/x86_64-linux-gnu", "lib64"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			return "", err
		}
	}
	bb, err := exec.LookPath("busybox")
	if err != nil {
		return "", err
	}
	nc, err := exec.LookPath("numactl")
	if err != nil {
		return "", err
	}
	// Pairs, not a map: the program may be busybox itself.
	copies := [][2]string{{bb, "bin/busybox"}, {nc, "bin/numactl"}, {o.Prog, strings.TrimPrefix(jobPath(o), "/")}}
	for _, l := range numactlLibs {
		copies = append(copies, [2]string{l, strings.TrimPrefix(l, "/")})
	}
	for _, c := range copies {
		if err := copyFile(c[0], filepath.Join(root, c[1]), 0o755); err != nil {
			return "", err
		}
	}
	if o.InDir != "" {
		if err := copyTree(o.InDir, filepath.Join(root, strings.TrimPrefix(guestIn, "/"))); err != nil {
			return "", fmt.Errorf("-in %s: %v", o.InDir, err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "init"), []byte(InitScript(o)), 0o755); err != nil {
		return "", err
	}
	initrd := filepath.Join(dir, "initrd.cpio")
	f, err := os.Create(initrd)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var names bytes.Buffer
	err = filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		names.WriteString(rel + "\n")
		return nil
	})
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, "cpio", "-o", "-H", "newc", "--quiet")
	cmd.Dir, cmd.Stdin, cmd.Stdout = root, &names, f
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("cpio: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return initrd, f.Close()
}

// guestIn is where Options.InDir lands in the guest.
const guestIn = "/in"

// copyTree copies the regular files and folders under src to dst,
// keeping their permission bits.
func copyTree(src, dst string) error {
	return filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		switch {
		case fi.IsDir():
			return os.MkdirAll(to, 0o755)
		case fi.Mode().IsRegular():
			return copyFile(p, to, fi.Mode().Perm())
		}
		return fmt.Errorf("%s: not a regular file or folder", p)
	})
}

func copyFile(src, dst string, mode os.FileMode) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, mode)
}

// Run boots the guest, runs the program and returns its exit status. An
// error means the program's status is unknown: the guest did not boot,
// the kernel panicked, or the run timed out.
func Run(ctx context.Context, o Options) (int, error) {
	if err := o.normalise(); err != nil {
		return -1, err
	}
	if err := Check(o.Kernel); err != nil {
		return -1, err
	}
	dir, err := os.MkdirTemp("", "schedlab-vm-")
	if err != nil {
		return -1, err
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	initrd, err := buildInitrd(ctx, &o, dir)
	if err != nil {
		return -1, err
	}
	fmt.Fprintf(o.Log, "schedlab vm: %d nodes, %d vCPUs, %d MiB, under QEMU's software emulation (TCG): the guest's topology, placement and kernel counters are real, its times are not\n", o.Nodes, o.CPUs, o.MemMiB)
	cmd := exec.Command("qemu-system-x86_64", QemuArgs(&o, initrd)...)
	cmd.Stdin = nil
	out, err := cmd.StdoutPipe()
	if err != nil {
		return -1, err
	}
	var qemuErr bytes.Buffer
	cmd.Stderr = &qemuErr
	if err := cmd.Start(); err != nil {
		return -1, fmt.Errorf("qemu-system-x86_64: %v", err)
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			cmd.Process.Kill()
		case <-done:
		}
	}()
	con := newConsole(o.Stdout)
	scanErr := con.read(out)
	waitErr := cmd.Wait()
	close(done)
	switch ctx.Err() {
	case context.DeadlineExceeded:
		return -1, fmt.Errorf("timed out after %v (%s)%s", o.Timeout, con.stage(), con.tail())
	case context.Canceled: // a signal to schedlab, not the limit
		return -1, fmt.Errorf("interrupted (%s)%s", con.stage(), con.tail())
	}
	if scanErr != nil {
		return -1, scanErr
	}
	if !con.started {
		why := "the guest ended before the program started"
		if con.panicked {
			why = "the guest kernel panicked before the program started"
		}
		if waitErr != nil {
			why += fmt.Sprintf(" (qemu: %v: %s)", waitErr, strings.TrimSpace(qemuErr.String()))
		}
		return -1, fmt.Errorf("%w: %s%s", ErrNoProgram, why, con.tail())
	}
	if con.exit < 0 {
		why := "the guest ended while the program ran"
		if con.panicked {
			why = "the guest kernel panicked while the program ran"
		}
		return -1, fmt.Errorf("%s%s", why, con.tail())
	}
	if o.OutDir != "" && con.archive.Len() > 0 {
		if err := untar(con.archive.String(), o.OutDir); err != nil {
			return con.exit, fmt.Errorf("copying $OUT back: %v", err)
		}
	}
	return con.exit, nil
}

// console follows the guest's serial output: kernel lines before the
// start marker are kept for error reports, the program's lines are
// streamed, then the exit status and $OUT's archive are read.
type console struct {
	w        io.Writer
	started  bool
	exit     int
	inOut    bool
	panicked bool
	archive  strings.Builder
	last     []string // the last lines seen, for errors
}

func newConsole(w io.Writer) *console { return &console{w: w, exit: -1} }

func (c *console) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		c.line(strings.TrimRight(sc.Text(), "\r"))
	}
	return sc.Err()
}

func (c *console) line(l string) {
	// A program whose last line has no newline shares it with the
	// marker after it.
	if i := strings.Index(l, markExit); i > 0 {
		c.line(l[:i])
		l = l[i:]
	}
	if strings.Contains(l, "Kernel panic") {
		c.panicked = true
	}
	switch {
	case l == markStart:
		c.started = true
		return
	case strings.HasPrefix(l, markExit) && strings.HasSuffix(l, "@@"):
		if n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(l, markExit), "@@")); err == nil {
			c.exit = n
			return
		}
	case l == markOut:
		c.inOut = true
		return
	case l == markOutEnd:
		c.inOut = false
		return
	}
	if c.inOut {
		c.archive.WriteString(l)
		return
	}
	if c.started && c.exit < 0 {
		fmt.Fprintln(c.w, l)
	}
	c.last = append(c.last, l)
	if len(c.last) > 20 {
		c.last = c.last[1:]
	}
}

func (c *console) stage() string {
	switch {
	case !c.started:
		return "booting"
	case c.exit < 0:
		return "the program was running"
	}
	return "copying $OUT back"
}

func (c *console) tail() string {
	if len(c.last) == 0 {
		return ""
	}
	return "; last console lines:\n\t" + strings.Join(c.last, "\n\t")
}

// untar unpacks a base64 gzip tar into dir, refusing paths that leave it.
func untar(b64, dir string) error {
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return err
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Clean(h.Name)
		if name == "." {
			continue
		}
		if filepath.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") {
			return fmt.Errorf("%s: outside $OUT", h.Name)
		}
		p := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			f, err := os.Create(p)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			f.Close()
			if err != nil {
				return err
			}
		}
	}
}
