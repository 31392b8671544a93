package object

import "strings"

// originDependency starts a Declared.DependsOn entry that names another
// declared object by its origin rather than a component.
const originDependency = "origin "

// DependencyOnOrigin returns the Declared.DependsOn entry that orders an
// object after the declared object whose origin is origin (and after its
// readiness), as a chart's objects follow its pre-install hooks. Origins
// so named must be unique within the composition.
func DependencyOnOrigin(origin string) string { return originDependency + origin }

// OriginOfDependency returns the origin a DependsOn entry made by
// DependencyOnOrigin names, and whether it is one.
func OriginOfDependency(entry string) (string, bool) {
	return strings.CutPrefix(entry, originDependency)
}
