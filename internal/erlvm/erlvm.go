// Package erlvm runs a live Erlang VM for tests: it compiles a small server
// module with erlc, starts erl on it, and calls functions of it over a
// {packet,4} port on the VM's standard input and output, in the External
// Term Format. One VM serves one caller at a time; calls carry lists of
// cases so that thousands of checks cost one round trip.
//
// A test gets a VM with ForTest (skipped without Erlang, failed under CI),
// or ForTestArgs for one started with more erl flags, and either calls
// the server's functions (erlvm_srv.erl: reencode, decode, same, sort,
// compare, map_keys, print, print_p, printable_range, generate) or
// evaluates any Erlang with Eval:
//
//	vm := erlvm.ForTest(t)
//	got, err := vm.Eval(ctx, `T = ets:new(t, []), ets:insert(T, Rows), ets:select(T, MS).`,
//		map[string]term.Term{"Rows": rows, "MS": matchSpec})
package erlvm

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/erlsext/sext/etf"
	"github.com/erlsext/sext/term"
)

//go:embed erlvm_srv.erl
var serverSource []byte

// ErrNoErlang means erl or erlc is not on the PATH.
var ErrNoErlang = errors.New("erlvm: erl and erlc are not installed (Debian: apt-get install erlang-nox)")

// maxReply bounds a reply's size, so that a broken channel cannot make the
// test allocate without limit.
const maxReply = 1 << 30

// VM is a running Erlang VM with the server module loaded.
type VM struct {
	mu     sync.Mutex
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *limitedBuffer
	done   chan struct{} // closed when the process has exited
	err    error         // why it exited
}

// Available reports whether erl and erlc can be run.
func Available() bool {
	_, err1 := exec.LookPath("erl")
	_, err2 := exec.LookPath("erlc")
	return err1 == nil && err2 == nil
}

// Start puts the compiled server into dir and starts a VM on it. The VM
// stops when ctx is done or Close is called.
func Start(ctx context.Context, dir string) (*VM, error) { return StartArgs(ctx, dir) }

// StartArgs is Start with more arguments for erl, such as "+pc", "unicode"
// for a VM whose printable range is all of Unicode.
func StartArgs(ctx context.Context, dir string, args ...string) (*VM, error) {
	if !Available() {
		return nil, ErrNoErlang
	}
	beam, err := compiledServer(ctx)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "erlvm_srv.beam"), beam, 0o644); err != nil {
		return nil, err
	}
	// Logging goes to standard error: standard output is the channel.
	argv := append([]string{"-noshell", "-noinput", "-pa", dir,
		"-kernel", "logger", `[{handler,default,logger_std_h,#{config=>#{type=>standard_error}}}]`},
		args...)
	cmd := exec.CommandContext(ctx, "erl", append(argv, "-s", "erlvm_srv", "main")...)
	v := &VM{cmd: cmd, stderr: &limitedBuffer{max: 64 << 10}, done: make(chan struct{})}
	cmd.Stderr = v.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	v.in, v.out = in, bufio.NewReaderSize(out, 64<<10)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("erlvm: start erl: %w", err)
	}
	go func() { v.err = cmd.Wait(); close(v.done) }()
	return v, nil
}

var server struct {
	mu   sync.Mutex
	beam []byte
}

// compiledServer returns the server module compiled by erlc: once a
// process, since erlc starts a VM of its own (half a second or more).
// A failure is not kept: the next call tries again.
func compiledServer(ctx context.Context) ([]byte, error) {
	server.mu.Lock()
	defer server.mu.Unlock()
	if server.beam != nil {
		return server.beam, nil
	}
	dir, err := os.MkdirTemp("", "erlvm-erlc-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "erlvm_srv.erl")
	if err := os.WriteFile(src, serverSource, 0o644); err != nil {
		return nil, err
	}
	if out, err := exec.CommandContext(ctx, "erlc", "-o", dir, src).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("erlvm: erlc: %v: %s", err, out)
	}
	beam, err := os.ReadFile(filepath.Join(dir, "erlvm_srv.beam"))
	if err != nil {
		return nil, fmt.Errorf("erlvm: erlc wrote no module: %w", err)
	}
	server.beam = beam
	return beam, nil
}

// Close stops the VM: it closes the channel, which ends the server's loop,
// and kills the VM if it has not exited within five seconds.
func (v *VM) Close() error {
	v.in.Close()
	select {
	case <-v.done:
	case <-time.After(5 * time.Second):
		v.cmd.Process.Kill()
		<-v.done
	}
	return nil
}

// Exchange sends one request packet and returns the reply packet. If ctx
// ends first the VM is killed, since a half-read reply leaves the channel
// unusable.
func (v *VM) Exchange(ctx context.Context, req []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	stop := context.AfterFunc(ctx, func() { v.cmd.Process.Kill() })
	defer stop()
	var hdr [4]byte
	binary.BigEndian.PutUint32(hdr[:], uint32(len(req)))
	if _, err := v.in.Write(append(hdr[:], req...)); err != nil {
		return nil, v.failed(ctx, err)
	}
	if _, err := io.ReadFull(v.out, hdr[:]); err != nil {
		return nil, v.failed(ctx, err)
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > maxReply {
		return nil, fmt.Errorf("erlvm: a reply of %d bytes", n)
	}
	reply := make([]byte, n)
	if _, err := io.ReadFull(v.out, reply); err != nil {
		return nil, v.failed(ctx, err)
	}
	return reply, nil
}

func (v *VM) failed(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	select {
	case <-v.done:
		return fmt.Errorf("erlvm: the VM exited (%v): %s", v.err, v.stderr.String())
	case <-time.After(100 * time.Millisecond):
	}
	return fmt.Errorf("erlvm: %w; VM's standard error: %s", err, v.stderr.String())
}

// Call calls the server's function fn with arg, both as terms, and returns
// its result. An exception in the VM is an error with its text.
func (v *VM) Call(ctx context.Context, fn string, arg term.Term) (term.Term, error) {
	req, err := etf.Encode(term.Tuple(term.Atom(fn), arg))
	if err != nil {
		return term.Term{}, err
	}
	reply, err := v.Exchange(ctx, req)
	if err != nil {
		return term.Term{}, err
	}
	t, err := etf.Options{MaxInflate: maxReply}.Decode(reply)
	if err != nil {
		return term.Term{}, fmt.Errorf("erlvm: reading the reply: %w", err)
	}
	if t.Kind() != term.KindTuple || t.Len() != 2 {
		return term.Term{}, fmt.Errorf("erlvm: a reply that is no pair: %v", t)
	}
	status, val := t.Elems()[0], t.Elems()[1]
	if status.Kind() == term.KindAtom && status.Atom() == "ok" {
		return val, nil
	}
	if val.Kind() == term.KindBinary {
		return term.Term{}, fmt.Errorf("erlvm: %s failed in the VM: %s", fn, val.Bytes())
	}
	return term.Term{}, fmt.Errorf("erlvm: %s failed in the VM: %v", fn, val)
}

// Eval evaluates Erlang expressions (such as "lists:sort(L).") with the
// given variable bindings, and returns the value of the last.
func (v *VM) Eval(ctx context.Context, src string, bindings map[string]term.Term) (term.Term, error) {
	bs := make([]term.Term, 0, len(bindings))
	for k, x := range bindings {
		bs = append(bs, term.Tuple(term.Atom(k), x))
	}
	return v.Call(ctx, "eval", term.Tuple(term.Binary([]byte(src)), term.List(bs...)))
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := b.max - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (b *limitedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
