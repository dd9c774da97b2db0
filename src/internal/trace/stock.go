package trace

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/schedlab/schedlab/src/internal/toolchain"
)

// StockCopy writes to out, atomically, the copy of traceFile that the
// patched toolchain's `go tool trace -d=stock` makes: the same events
// without the Steal experiment's, under the stock header, which the
// pinned release's tools read. It returns the copy's size and whether it
// is byte for byte the input (a trace that was stock already).
func StockCopy(tc *toolchain.Toolchain, traceFile, out string) (size int64, same bool, err error) {
	err = writeAtomic(out, func(f *os.File) error {
		cmd := exec.CommandContext(context.Background(), tc.GoCmd(), "tool", "trace", "-d=stock", traceFile)
		cmd.Env = tc.Env()
		cmd.Stdout = f
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			msg := strings.TrimSpace(stderr.String())
			if len(msg) > 2000 {
				msg = "..." + msg[len(msg)-2000:]
			}
			err = fmt.Errorf("go tool trace -d=stock %s: %v\n%s", traceFile, err, msg)
			if strings.Contains(msg, "invalid debug mode stock") {
				err = fmt.Errorf("%v\n(this go tool trace predates -d=stock: rebuild the toolchain with make toolchain)", err)
			}
			return err
		}
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		if size = fi.Size(); size == 0 {
			return fmt.Errorf("go tool trace -d=stock %s wrote nothing", traceFile)
		}
		same, err = sameContents(f.Name(), traceFile)
		return err
	})
	return size, same, err
}

// sameContents reports whether two files hold the same bytes.
func sameContents(a, b string) (bool, error) {
	fa, err := os.Open(a)
	if err != nil {
		return false, err
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return false, err
	}
	defer fb.Close()
	ba, bb := make([]byte, 1<<16), make([]byte, 1<<16)
	for {
		na, ea := io.ReadFull(fa, ba)
		nb, eb := io.ReadFull(fb, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false, nil
		}
		if ea == io.EOF || ea == io.ErrUnexpectedEOF {
			return eb == io.EOF || eb == io.ErrUnexpectedEOF, nil
		}
		if ea != nil {
			return false, ea
		}
		if eb != nil {
			return false, eb
		}
	}
}
