// Package redact finds secret values in text, in the encodings programs
// print them in, and replaces them before the text is kept or shown.
package redact
