package spec

import "github.com/BurntSushi/toml"

// rawFile is the top level of release.toml; each table is decoded on its
// own so that a type error in one still lets the others be checked.
type rawFile struct {
	Target    toml.Primitive   `toml:"target"`
	Release   toml.Primitive   `toml:"release"`
	Images    toml.Primitive   `toml:"images"`
	Values    toml.Primitive   `toml:"values"`
	Checks    []toml.Primitive `toml:"checks"`
	Deploy    toml.Primitive   `toml:"deploy"`
	Telemetry toml.Primitive   `toml:"telemetry"`
	// Environments is decoded whole: the layout check has already
	// reported a wrong type in any environment.
	Environments toml.Primitive `toml:"environments"`
	// Charts and Kustomizations are decoded in charts.go.
	Charts         []toml.Primitive `toml:"charts"`
	Kustomizations []toml.Primitive `toml:"kustomizations"`
}

type rawDeploy struct {
	Deliver             *string `toml:"deliver"`
	ContainerdAddress   *string `toml:"containerd_address"`
	ContainerdNamespace *string `toml:"containerd_namespace"`
	Registry            *string `toml:"registry"`
}

type rawTelemetry struct {
	OTLPEndpoint  *string `toml:"otlp_endpoint"`
	ExportTimeout *string `toml:"export_timeout"`
}

type rawTarget struct {
	Kubeconfig *string  `toml:"kubeconfig"`
	Context    *string  `toml:"context"`
	Namespace  *string  `toml:"namespace"`
	Namespaces []string `toml:"namespaces"`
}

type rawRelease struct {
	Name                *string  `toml:"name"`
	Owner               *string  `toml:"owner"`
	FieldManager        *string  `toml:"field_manager"`
	Composition         *string  `toml:"composition"`
	StateDir            *string  `toml:"state_dir"`
	State               *string  `toml:"state"`
	StateNamespace      *string  `toml:"state_namespace"`
	StateSigners        []string `toml:"state_signers"`
	AllowUnpinnedImages bool     `toml:"allow_unpinned_images"`
	RequirePinnedImages bool     `toml:"require_pinned_images"`
	Prune               bool     `toml:"prune"`
	OnFailure           *string  `toml:"on_failure"`
	ReadyTimeout        *string  `toml:"ready_timeout"`
	Wait                *string  `toml:"wait"`
}

// rawImage is one [images] entry: a reference string, or an inline table
// { build = "NAME", registry = "HOST" } naming an image of the build.toml
// beside the spec. It keeps the value as decoded; images validates it.
type rawImage struct{ value any }

// UnmarshalTOML keeps the value for images to check.
func (r *rawImage) UnmarshalTOML(v any) error {
	r.value = v
	return nil
}

type rawCheck struct {
	Name    *string     `toml:"name"`
	Timeout *string     `toml:"timeout"`
	Retries *int        `toml:"retries"`
	Backoff *string     `toml:"backoff"`
	HTTP    *rawHTTP    `toml:"http"`
	TCP     *rawTCP     `toml:"tcp"`
	Command *rawCommand `toml:"command"`
	Job     *rawJob     `toml:"job"`
}

type rawHTTP struct {
	Service      *string           `toml:"service"`
	Port         *int              `toml:"port"`
	Path         *string           `toml:"path"`
	ExpectStatus *int              `toml:"expect_status"`
	Method       *string           `toml:"method"`
	Headers      map[string]string `toml:"headers"`
	BodyContains *string           `toml:"body_contains"`
	BodyRegexp   *string           `toml:"body_regexp"`
}

type rawCommand struct {
	Run      []string `toml:"run"`
	Dir      *string  `toml:"dir"`
	Services []string `toml:"services"`
}

type rawJob struct {
	From        *string           `toml:"from"`
	Image       *string           `toml:"image"`
	Command     []string          `toml:"command"`
	Args        []string          `toml:"args"`
	Annotations map[string]string `toml:"annotations"`
}

type rawTCP struct {
	Service *string `toml:"service"`
	Port    *int    `toml:"port"`
}

// knownKeys lists the keys each table accepts, for unknown-key hints.
var knownKeys = map[string]string{
	"":            "target, release, images, values, checks, deploy, telemetry, charts, kustomizations, environments",
	"deploy":      "deliver, containerd_address, containerd_namespace, registry",
	"telemetry":   "otlp_endpoint, export_timeout",
	"target":      "kubeconfig, context, namespace, namespaces",
	"release":     "name, owner, field_manager, composition, state_dir, state, state_namespace, state_signers, allow_unpinned_images, require_pinned_images, prune, on_failure, ready_timeout, wait",
	"checks":      "name, timeout, retries, backoff, http, tcp, command, job",
	"checks.http": "service, port, path, expect_status, method, headers, body_contains, body_regexp",
	"checks.tcp":  "service, port",

	"checks.command": "run, dir, services",
	"checks.job":     "from, image, command, args, annotations",

	"environments.*":         "target, release, values, images",
	"environments.*.target":  "kubeconfig, context, namespace, namespaces",
	"environments.*.release": "state_dir, state, state_namespace, state_signers, allow_unpinned_images, require_pinned_images, prune, on_failure, ready_timeout, wait",
}
