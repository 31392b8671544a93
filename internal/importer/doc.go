// Package importer brings existing objects into Piceli: it reads manifest
// files or a live namespace, strips what the server owns, generates a Go
// module with internal/importgen, proves by rendering it that the module
// reproduces every object (after the normalisation Normal documents, and
// falling back to plainer forms where a form does not), and only then
// writes it. Bad input is refused with an error naming the file and
// document or the object, before anything is written; no Secret value ever
// reaches a generated file, a message or a log.
package importer
