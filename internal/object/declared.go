package object

import pub "github.com/pynenc/piceli/object"

// Declared is one object a release declares and where it came from; its
// home is the public package object, where a composition document's users
// read it.
type Declared = pub.Declared
