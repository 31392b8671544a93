package object

// WaitAnnotation, set to "true" or "false" on a declared object, says
// whether apply waits for the object to be ready before its next wave; it
// beats the release's default ([release] wait in release.toml). A plan
// refuses any other value.
const WaitAnnotation = "piceli.dev/wait"
