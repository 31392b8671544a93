package artifact

// BuildSchema versions a BuildDoc.
const BuildSchema = "piceli.build/v1"

// BuildDoc is what Build made, as one versioned document.
type BuildDoc struct {
	Schema string       `json:"schema"` // BuildSchema
	Build  *BuildResult `json:"build"`
}

// Doc returns r as a BuildDoc.
func (r *BuildResult) Doc() BuildDoc { return BuildDoc{Schema: BuildSchema, Build: r} }

// InspectSchema versions an InspectDoc.
const InspectSchema = "piceli.inspect/v1"

// InspectDoc is what Inspect found in a layout, as one versioned document.
type InspectDoc struct {
	Schema  string  `json:"schema"` // InspectSchema
	Inspect *Report `json:"inspect"`
}

// Doc returns r as an InspectDoc.
func (r *Report) Doc() InspectDoc { return InspectDoc{Schema: InspectSchema, Inspect: r} }

// ImportSchema versions an ImportDoc.
const ImportSchema = "piceli.import/v1"

// ImportDoc is the receipt of an Import and the file it was written to,
// as one versioned document.
type ImportDoc struct {
	Schema      string   `json:"schema"` // ImportSchema
	Receipt     *Receipt `json:"receipt"`
	ReceiptFile string   `json:"receipt_file"`
}

// ImportDocOf returns rec as an ImportDoc.
func ImportDocOf(rec *Receipt) ImportDoc {
	return ImportDoc{Schema: ImportSchema, Receipt: rec, ReceiptFile: rec.Path}
}
