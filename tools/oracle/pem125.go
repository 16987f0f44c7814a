package main

import (
	"bytes"
	"encoding/base64"
	"encoding/pem"
)

// decode125 models encoding/pem.Decode as rewritten for CVE-2025-61723 (Go
// 1.24.8 / 1.25.2), which joinkit follows, from its description in
// go-exact.md §3.2 (written here, not copied): find the first "\n-----END ",
// take the last "-----BEGIN " before it (at offset 0 or after "\n"); any
// malformed block is skipped. The oracle's own toolchain (Go 1.23) has the
// older BEGIN-first scan; intended.ts uses this model only to recognise that
// version difference, never as the verdict.
func decode125(data []byte) (*pem.Block, []byte) {
	rest := data
	for {
		endIdx := bytes.Index(rest, []byte("\n-----END "))
		if endIdx < 0 {
			return nil, data
		}
		after := rest[endIdx+len("\n-----END "):]
		beginIdx := bytes.LastIndex(rest[:endIdx], []byte("-----BEGIN "))
		if beginIdx < 0 || beginIdx > 0 && rest[beginIdx-1] != '\n' {
			rest = after
			continue
		}
		typeLine, body := getLine125(rest[beginIdx+len("-----BEGIN ") : endIdx+1])
		if !bytes.HasSuffix(typeLine, []byte("-----")) {
			rest = after
			continue
		}
		typ := typeLine[:len(typeLine)-5]
		p := &pem.Block{Type: string(typ), Headers: map[string]string{}}
		for len(body) > 0 {
			line, next := getLine125(body)
			k, v, ok := bytes.Cut(line, []byte(":"))
			if !ok {
				break
			}
			p.Headers[string(bytes.TrimSpace(k))] = string(bytes.TrimSpace(v))
			body = next
		}
		if !bytes.HasPrefix(after, append(append([]byte{}, typ...), "-----"...)) {
			rest = after
			continue
		}
		endLine, next := getLine125(after[len(typ)+5:])
		if len(endLine) != 0 {
			rest = after
			continue
		}
		b64 := bytes.NewBuffer(nil)
		for _, c := range body {
			if c != ' ' && c != '\t' {
				b64.WriteByte(c)
			}
		}
		out := make([]byte, base64.StdEncoding.DecodedLen(b64.Len()))
		n, err := base64.StdEncoding.Decode(out, b64.Bytes())
		if err != nil {
			rest = after
			continue
		}
		p.Bytes = out[:n]
		return p, next
	}
}

func getLine125(data []byte) (line, rest []byte) {
	i := bytes.IndexByte(data, '\n')
	j := i + 1
	if i < 0 {
		i, j = len(data), len(data)
	} else if i > 0 && data[i-1] == '\r' {
		i--
	}
	return bytes.TrimRight(data[:i], " \t"), data[j:]
}
