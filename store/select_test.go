package store_test

import (
	"testing"

	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblekv"
	"github.com/erlsext/sext/store/storetest"
)

func TestPebbleSelect(t *testing.T) {
	storetest.RunSelect(t, func(t *testing.T) store.KV {
		kv, err := pebblekv.Open(t.TempDir(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return kv
	}, storetest.SelectConfig{})
}
