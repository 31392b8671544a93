// Package atomicfile replaces whole files so that a crash leaves either the
// old content or the new, never a mix.
package atomicfile
