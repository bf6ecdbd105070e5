package term

import (
	"testing"

	"github.com/erlsext/sext/internal/testsize"
)

// TestMain sizes the properties (internal/testsize).
func TestMain(m *testing.M) { testsize.Main(m) }
