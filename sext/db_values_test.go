package main

import (
	"context"
	"testing"

	"github.com/erlsext/sext/etf"
	"github.com/erlsext/sext/store/pebblekv"
	"github.com/erlsext/sext/store/pebblestore"
	"github.com/erlsext/sext/term"
)

func TestDBValuesETF(t *testing.T) {
	dir := t.TempDir()
	db := func(stdin string, args ...string) result {
		return runSext(t, stdin, append([]string{"db", "--dir", dir}, args...)...)
	}
	db("", "put", "--values", "etf", "{user,1}", "#{name => ann, n => 7}").want(t, 0, "")
	db("", "put", "{user,2}", "raw text").want(t, 0, "")
	db("", "get", "--values", "etf", "{user,1}").want(t, 0, "#{n => 7,name => ann}\n")
	db("", "get", "--values", "etf", "{user,2}").want(t, 1, "", "sext: the value of {user,2}: byte 0: no version byte 131")
	db("{user,3}\t[1,2.5|x]\n{user,4}\tfoo(\n{user,5}\t#Desc<1>\n", "load", "--values", "etf", "-").
		want(t, 1, "", "sext: stdin:2: the value: column 4:", "sext: stdin:3: the value: term cannot be encoded", "2 bad lines left out")
	db("", "scan", "--values", "etf", "{user,'_'}").
		want(t, 1, "{user,1}\t#{n => 7,name => ann}\n{user,3}\t[1,2.5|x]\n", "sext: the value of {user,2}: skipped: byte 0:")
	db("", "put", "--values", "etf", "{user,6}", "foo(").want(t, 2, "", "sext: VALUE: column 4:")
	db("", "put", "--values", "json", "{user,6}", "1").want(t, 2, "", "--values")

	// The stored bytes are term_to_binary's, for Go and Erlang readers alike.
	s, err := pebblestore.Open(ctx, dir, &pebblestore.Options{Pebble: pebblekv.Options{MustExist: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	raw, err := s.Get(context.Background(), term.Tuple(term.Atom("user"), term.Int(3)))
	want, _ := etf.Encode(term.ImproperList([]term.Term{term.Int(1), term.Float(2.5)}, term.Atom("x")))
	if err != nil || string(raw) != string(want) {
		t.Fatalf("stored %v, %v; want %v", raw, err, want)
	}
}
