package spec

import (
	"errors"
	"regexp"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// syntaxError reports TOML the parser rejected.
func syntaxError(file string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return &Error{File: file, Line: pe.Position.Line, Msg: "invalid TOML: " + pe.Message}
	}
	return &Error{File: file, Msg: "invalid TOML: " + strings.TrimPrefix(err.Error(), "toml: ")}
}

// decodeErrorRE matches the decoder's "toml: line N (last key "k"): msg".
var decodeErrorRE = regexp.MustCompile(`^toml: (?:line (\d+) )?\(last key "((?:[^"\\]|\\.)*)"\): (.*)$`)

// typeError turns a decode error into an *Error on the key's line.
func (p *parser) typeError(err error, rename func(string) string) error {
	line, key, msg := splitDecodeError(err)
	key = rename(key)
	if n := p.loc.Line(key); n > 0 {
		line = n
	}
	return &Error{File: p.errs.File, Line: line, Key: key, Msg: tidyTypeMessage(msg)}
}

// splitDecodeError extracts the line, key and message of a decode error.
func splitDecodeError(err error) (line int, key, msg string) {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return pe.Position.Line, pe.LastKey, pe.Message
	}
	m := decodeErrorRE.FindStringSubmatch(err.Error())
	if m == nil {
		return 0, "", strings.TrimPrefix(err.Error(), "toml: ")
	}
	line, _ = strconv.Atoi(m[1])
	key, uerr := strconv.Unquote(`"` + m[2] + `"`)
	if uerr != nil {
		key = m[2]
	}
	return line, key, m[3]
}

var (
	incompatibleRE = regexp.MustCompile(`^incompatible types: TOML value has type (.+); destination has type (.+)$`)
	mismatchRE     = regexp.MustCompile(`^type mismatch for .+: expected table but found (.+)$`)
)

// tidyTypeMessage rewords the decoder's type messages in TOML terms.
func tidyTypeMessage(msg string) string {
	if m := incompatibleRE.FindStringSubmatch(msg); m != nil {
		return "wrong type: want " + tomlTypeName(m[2]) + ", have " + tomlTypeName(m[1])
	}
	if m := mismatchRE.FindStringSubmatch(msg); m != nil {
		return "wrong type: want table, have " + tomlTypeName(m[1])
	}
	return msg
}

// tomlTypeName names a Go type as the TOML type a user writes.
func tomlTypeName(goType string) string {
	switch {
	case goType == "ArrayHash":
		return "array of tables"
	case goType == "Bool":
		return "boolean"
	case goType == "Integer", goType == "String", goType == "Float", goType == "Array", goType == "Datetime":
		return strings.ToLower(goType)
	case strings.HasPrefix(goType, "[]map"):
		return "array of tables"
	case strings.HasPrefix(goType, "map"):
		return "table"
	case strings.HasPrefix(goType, "[]"), goType == "slice":
		return "array"
	case strings.HasPrefix(goType, "int"), goType == "integer":
		return "integer"
	case strings.HasPrefix(goType, "float"):
		return "float"
	case goType == "bool", goType == "boolean":
		return "boolean"
	}
	return goType
}
