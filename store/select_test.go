package store_test

import (
	"testing"

	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/storetest"
)

func TestPebbleSelect(t *testing.T) {
	storetest.RunSelect(t, func(t *testing.T) store.KV {
		kv, err := store.OpenPebble(t.TempDir(), &store.Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		return kv
	}, storetest.SelectConfig{})
}
