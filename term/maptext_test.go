package term

import (
	"slices"
	"strings"
)

// skipQuoted returns the index just past the quoted atom or string that
// starts at s[i].
func skipQuoted(s string, i int) int {
	q := s[i]
	for i++; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case q:
			return i + 1
		}
	}
	return len(s)
}

// closeOf returns the index of the bracket closing the one at s[i], in
// term text as String writes it.
func closeOf(s string, i int) int {
	depth := 0
	for i < len(s) {
		switch c := s[i]; {
		case c == '\'' || c == '"':
			i = skipQuoted(s, i)
			continue
		case c == '=' && i+1 < len(s) && s[i+1] == '>':
			i += 2
			continue
		case c == '[' || c == '{' || c == '<':
			depth++
		case c == ']' || c == '}' || c == '>':
			depth--
			if depth == 0 {
				return i
			}
		}
		i++
	}
	return len(s)
}

// splitTop splits s at its top-level occurrences of sep.
func splitTop(s, sep string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '\'' || c == '"':
			i = skipQuoted(s, i)
			continue
		case c == '[' || c == '{' || c == '<':
			i = closeOf(s, i) + 1
			continue
		case strings.HasPrefix(s[i:], sep):
			out = append(out, s[start:i])
			i += len(sep)
			start = i
			continue
		}
		i++
	}
	return append(out, s[start:])
}

// mapBodies calls f with the entries of every map in s, outermost first.
func mapBodies(s string, f func(entries []string)) {
	for i := 0; i < len(s); {
		switch {
		case s[i] == '\'' || s[i] == '"':
			i = skipQuoted(s, i)
		case strings.HasPrefix(s[i:], "#{}"):
			i += 3
		case strings.HasPrefix(s[i:], "#{"):
			j := closeOf(s, i+1)
			f(splitTop(s[i+2:j], ","))
			i += 2
		default:
			i++
		}
	}
}

// sortMapText rewrites term text with every map's entries in byte order,
// so that texts differing only in the order of map entries compare equal.
func sortMapText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case s[i] == '\'' || s[i] == '"':
			j := skipQuoted(s, i)
			b.WriteString(s[i:j])
			i = j
		case strings.HasPrefix(s[i:], "#{") && s[i+2] != '}':
			j := closeOf(s, i+1)
			entries := splitTop(s[i+2:j], ",")
			for k, e := range entries {
				entries[k] = sortMapText(e)
			}
			slices.Sort(entries)
			b.WriteString("#{" + strings.Join(entries, ",") + "}")
			i = j + 1
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String()
}
