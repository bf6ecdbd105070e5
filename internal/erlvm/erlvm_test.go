package erlvm

import (
	"context"
	"strings"
	"testing"

	"github.com/erlsext/sext/term"
)

func TestCall(t *testing.T) {
	v := Shared(t)
	ctx := context.Background()
	rel, err := v.Call(ctx, "otp_release", term.List())
	if err != nil {
		t.Fatal(err)
	}
	if rel.Kind() != term.KindBinary || len(rel.Bytes()) == 0 {
		t.Fatalf("otp_release: %v", rel)
	}
	t.Logf("OTP %s", rel.Bytes())
	x := term.Tuple(term.Atom("a"), term.Int(1), term.Binary([]byte("b")))
	got, err := v.Call(ctx, "ping", x)
	if err != nil || !term.Equal(got, x) {
		t.Fatalf("ping: %v, %v", got, err)
	}
	got, err = v.Eval(ctx, "lists:reverse(L) ++ [X + 1].", map[string]term.Term{
		"L": term.List(term.Int(1), term.Int(2)), "X": term.Int(41)})
	if want := term.List(term.Int(2), term.Int(1), term.Int(42)); err != nil || !term.Equal(got, want) {
		t.Fatalf("eval: %v, %v; want %v", got, err, want)
	}
	// ets:select, as the select tests will run it.
	rows := term.List(term.Tuple(term.Atom("a"), term.Int(1)), term.Tuple(term.Atom("b"), term.Int(2)))
	ms, _ := term.Parse("[{{'$1', '$2'}, [{'>', '$2', 1}], ['$1']}]")
	got, err = v.Eval(ctx, "T = ets:new(t, []), ets:insert(T, Rows), ets:select(T, MS).",
		map[string]term.Term{"Rows": rows, "MS": ms})
	if want := term.List(term.Atom("b")); err != nil || !term.Equal(got, want) {
		t.Fatalf("ets:select: %v, %v; want %v", got, err, want)
	}
	// An exception comes back as an error, and the VM goes on serving.
	if _, err := v.Eval(ctx, "1 + a.", nil); err == nil || !strings.Contains(err.Error(), "badarith") {
		t.Fatalf("eval of 1 + a: %v", err)
	}
	if _, err := v.Call(ctx, "ping", term.Int(1)); err != nil {
		t.Fatalf("after an exception: %v", err)
	}
}

func TestCancel(t *testing.T) {
	v := ForTest(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := v.Call(ctx, "ping", term.Int(1)); err == nil {
		t.Fatal("a call with a cancelled context succeeded")
	}
}

// Shared gives every caller one VM, and a new one once that has exited.
func TestShared(t *testing.T) {
	ctx := context.Background()
	v := Shared(t)
	if w := Shared(t); w != v {
		t.Fatal("a second call started another VM")
	}
	if _, err := v.Call(ctx, "ping", term.Int(1)); err != nil {
		t.Fatal(err)
	}
	v.Close() // as a test that broke it would leave it
	w := Shared(t)
	if w == v {
		t.Fatal("Shared returned a VM that has exited")
	}
	if got, err := w.Call(ctx, "ping", term.Int(2)); err != nil || !term.Equal(got, term.Int(2)) {
		t.Fatalf("the new VM: ping: %v, %v", got, err)
	}
}
