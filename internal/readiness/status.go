package readiness

// Status is the readiness of one object. Its values are stable: they are
// printed and stored.
type Status string

// The statuses Compute returns.
const (
	// Current means the object has reached its desired state.
	Current Status = "current"
	// InProgress means the object is still reconciling; waiting may help.
	InProgress Status = "in-progress"
	// Failed means the object will not become ready without a change.
	Failed Status = "failed"
	// Unknown means the status could not be read from the object.
	Unknown Status = "unknown"
)

// Result is the readiness of one object with a one-line reason.
type Result struct {
	Status  Status
	Message string
}

func current(msg string) Result    { return Result{Status: Current, Message: msg} }
func inProgress(msg string) Result { return Result{Status: InProgress, Message: msg} }
func failed(msg string) Result     { return Result{Status: Failed, Message: msg} }
