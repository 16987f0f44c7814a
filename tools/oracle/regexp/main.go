// Command regexp renders Go's verdicts for the oracle's `regexp` judgement
// (`deno task oracle --only regexp`): regexp.Compile of a pattern, then
// MatchString of the input (and Match of the input's bytes when given as
// base64, for invalid UTF-8). JSON lines in, one JSON answer per line out.
// It is a program of its own so that it builds without the go125 overlay:
// Go 1.23's regexp is what kubelet-csr-approver runs. Standard library only.
package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
)

type request struct {
	// P is the pattern, S the input string (JSON, so a lone surrogate reads as U+FFFD).
	P string `json:"p"`
	S string `json:"s"`
	// B, when set, is the input as base64 bytes (may be invalid UTF-8); Match is used.
	B *string `json:"b,omitempty"`
}

type answer struct {
	OK    bool   `json:"ok"`
	Err   string `json:"err,omitempty"`
	Match *bool  `json:"match,omitempty"`
	Fatal string `json:"fatal,omitempty"`
	Panic string `json:"panic,omitempty"`
}

func judge(req *request) (ans answer) {
	defer func() {
		if r := recover(); r != nil {
			ans = answer{Panic: fmt.Sprint(r)}
		}
	}()
	re, err := regexp.Compile(req.P)
	if err != nil {
		return answer{Err: err.Error()}
	}
	var m bool
	if req.B != nil {
		b, err := base64.StdEncoding.DecodeString(*req.B)
		if err != nil {
			return answer{Fatal: "bad base64: " + err.Error()}
		}
		m = re.Match(b)
	} else {
		m = re.MatchString(req.S)
	}
	return answer{OK: true, Match: &m}
}

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer out.Flush()
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			var req request
			var ans answer
			if jerr := json.Unmarshal(line, &req); jerr != nil {
				ans = answer{Fatal: "bad request: " + jerr.Error()}
			} else {
				ans = judge(&req)
			}
			if werr := enc.Encode(ans); werr != nil {
				fmt.Fprintln(os.Stderr, "oracle regexp:", werr)
				os.Exit(1)
			}
		}
		if err != nil {
			return
		}
	}
}
