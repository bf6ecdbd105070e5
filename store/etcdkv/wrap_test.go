package etcdkv

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestWrapWhoseDeadline: the server's report of a passed deadline can
// arrive a moment before the caller's context expires here. When the
// caller's deadline is the earlier one, the error is the caller's
// (context.DeadlineExceeded and ErrUnavailable); when the KV's timeout
// is, it names the timeout. (TestFaults met the first race about one
// run in three.)
func TestWrapWhoseDeadline(t *testing.T) {
	kv := &KV{timeout: 2 * time.Second}
	fromServer := status.Error(codes.Unknown, "context deadline exceeded")
	for _, c := range []struct {
		name      string
		deadline  time.Duration // the caller's, 0 for none
		callers   bool
		inMessage string
	}{
		{"the caller's deadline, earlier", 300 * time.Millisecond, true, "the caller's deadline"},
		{"the caller's deadline, later", time.Minute, false, "no answer within 2s"},
		{"no caller's deadline", 0, false, "no answer within 2s"},
	} {
		parent, cancel := context.Background(), context.CancelFunc(func() {})
		if c.deadline > 0 {
			parent, cancel = context.WithTimeout(parent, c.deadline)
		}
		ctx, cancel2 := kv.ctx(parent)
		err := kv.wrap(parent, ctx, "get", fromServer)
		cancel2()
		cancel()
		if !errors.Is(err, ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) != c.callers || !strings.Contains(err.Error(), c.inMessage) {
			t.Errorf("%s: %v; want ErrUnavailable, DeadlineExceeded %v, %q", c.name, err, c.callers, c.inMessage)
		}
	}
}
