package object

// ReleaseLabel holds the release's name on every object a release
// declares (render sets it) and on the release's Lease, so a plan can tell
// the release's own objects from ones it would adopt, and prune can find
// the objects the release no longer declares.
const ReleaseLabel = "piceli.dev/release"
