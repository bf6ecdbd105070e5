package main

import (
	"fmt"

	"github.com/erlsext/sext/term"
)

// printFormat is the text every term the command prints is written in,
// output and messages alike: term.P, Erlang's ~p ({user,<<"alice">>}),
// unless --print chose another.
var printFormat = term.P

// printForms are the values of --print and the formats they name.
var printForms = []struct {
	name string
	f    *term.Format
}{
	{"p", term.P},
	{"w", term.W},
	{"unicode", term.P.WithPrintableRange(term.Unicode)},
}

// printFlag adds --print to fs; every command has it, since any may print
// a term in a message.
func printFlag(fs *flagSet) {
	fs.Var(printValue{}, "print", "how terms are printed, `FORM`: p as Erlang's ~p ({user,<<\"alice\">>}, \"ab\"), w as ~w ({user,<<97,108,105,99,101>>}, [97,98]), unicode as p with every Unicode character printable (erl +pc unicode)")
	fs.Lookup("print").DefValue = "p" // whatever an earlier flag set chose
}

// printValue is the flag.Value of --print: it sets printFormat.
type printValue struct{}

func (printValue) String() string {
	for _, p := range printForms {
		if p.f == printFormat {
			return p.name
		}
	}
	return "p"
}

func (printValue) Set(s string) error {
	for _, p := range printForms {
		if p.name == s {
			printFormat = p.f
			return nil
		}
	}
	return fmt.Errorf("must be one of p, w, unicode")
}
