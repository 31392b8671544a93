package plan

// ShortHash is the first 12 hex digits of a plan hash ("sha256:" and 64
// hex digits), for people; Apply accepts it in place of the whole. Any
// other string is returned as it is.
func ShortHash(hash string) string {
	const prefix = "sha256:"
	if len(hash) >= len(prefix)+12 {
		return hash[len(prefix) : len(prefix)+12]
	}
	return hash
}

// ShortHash is the first 12 hex digits of the plan's hash, which Apply
// accepts in place of the whole; empty before the plan is stored.
func (p *Plan) ShortHash() string { return ShortHash(p.Hash) }
