package observe

// LogsSchema versions a LogTailDoc.
const LogsSchema = "piceli.observe-logs/v1"

// LogTailDoc is a LogTail as one versioned document.
type LogTailDoc struct {
	Schema string `json:"schema"` // LogsSchema
	LogTail
}

// Doc returns t as a LogTailDoc.
func (t *LogTail) Doc() LogTailDoc { return LogTailDoc{Schema: LogsSchema, LogTail: *t} }

// ForwardsDoc is a user's saved forwards as one versioned document, in the
// shape of the preferences file.
type ForwardsDoc struct {
	Schema   string    `json:"schema"` // ForwardsSchema
	User     string    `json:"user"`
	Forwards []Forward `json:"forwards"`
}

// NewForwardsDoc returns user's forwards fs as a ForwardsDoc.
func NewForwardsDoc(user string, fs []Forward) ForwardsDoc {
	return ForwardsDoc{Schema: ForwardsSchema, User: user, Forwards: fs}
}
