package postgres

import (
	"fmt"
	"regexp"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Defaults of the options a consumer leaves out. Image has none: a
// database image is the consumer's choice, pinned by digest.
const (
	DefaultStorage        = "1Gi"
	DefaultCPURequest     = "100m"
	DefaultMemoryRequest  = "256Mi"
	DefaultMemoryLimit    = "512Mi"
	DefaultUser           = "app"
	DefaultPasswordLength = 32
	// MinPasswordLength is the shortest generated password PasswordLength
	// accepts.
	MinPasswordLength = 16
)

// Option configures the database Add declares. Options are values, not
// strings in a map: a misspelt option is a compile error in the consumer.
type Option func(*config)

// config is what the options set, defaults first.
type config struct {
	image          string
	storage        string
	storageClass   string
	cpuRequest     string
	memoryRequest  string
	memoryLimit    string // "" until MemoryLimit: DefaultMemoryLimit or the request
	database       string // "" means the component's name
	user           string
	passwordLength int
	memoryLimitSet bool
}

// defaults returns the configuration of a database given no option.
func defaults() config {
	return config{
		storage:        DefaultStorage,
		cpuRequest:     DefaultCPURequest,
		memoryRequest:  DefaultMemoryRequest,
		user:           DefaultUser,
		passwordLength: DefaultPasswordLength,
	}
}

// Image sets the PostgreSQL image, required: usually ctx.Image("postgres"),
// a reference pinned by digest in release.toml.
func Image(ref string) Option { return func(c *config) { c.image = ref } }

// Storage sets the size of the data volume claim, a quantity such as
// "20Gi"; DefaultStorage without it.
func Storage(size string) Option { return func(c *config) { c.storage = size } }

// StorageClass sets the data claim's storage class; without it the
// cluster's default class provisions the volume.
func StorageClass(name string) Option { return func(c *config) { c.storageClass = name } }

// Requests sets the CPU and memory requests, as quantities;
// DefaultCPURequest and DefaultMemoryRequest without it.
func Requests(cpu, memory string) Option {
	return func(c *config) { c.cpuRequest, c.memoryRequest = cpu, memory }
}

// MemoryLimit sets the memory limit, a quantity no smaller than the
// memory request; without it, DefaultMemoryLimit or the memory request
// when that is larger.
func MemoryLimit(memory string) Option {
	return func(c *config) { c.memoryLimit, c.memoryLimitSet = memory, true }
}

// DatabaseName sets the name of the database created at first start
// (POSTGRES_DB); without it, the component's name with "-" as "_".
func DatabaseName(name string) Option { return func(c *config) { c.database = name } }

// User sets the role created at first start (POSTGRES_USER); DefaultUser
// without it.
func User(name string) Option { return func(c *config) { c.user = name } }

// PasswordLength sets the length of the generated password, at least
// MinPasswordLength; DefaultPasswordLength without it.
func PasswordLength(n int) Option { return func(c *config) { c.passwordLength = n } }

// identifier is an unquoted PostgreSQL identifier Piceli accepts for a
// database or role: lower case, at most 63 bytes (NAMEDATALEN-1).
var identifier = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// problems returns what is wrong with c, one message per option, and
// resets each bad field to its default so that the objects still declare
// (Composition fails on the messages anyway).
func (c *config) problems() []string {
	var out []string
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	d := defaults()
	if c.image == "" {
		bad("postgres.Image is required (such as ctx.Image(%q), pinned by digest)", "postgres")
		c.image = "invalid.example/postgres-image-required"
	}
	if msg := positive(c.storage); msg != "" {
		bad("postgres.Storage %q: %s", c.storage, msg)
		c.storage = d.storage
	}
	if msg := positive(c.cpuRequest); msg != "" {
		bad("postgres.Requests cpu %q: %s", c.cpuRequest, msg)
		c.cpuRequest = d.cpuRequest
	}
	if msg := positive(c.memoryRequest); msg != "" {
		bad("postgres.Requests memory %q: %s", c.memoryRequest, msg)
		c.memoryRequest = d.memoryRequest
	}
	if !c.memoryLimitSet {
		c.memoryLimit = larger(DefaultMemoryLimit, c.memoryRequest)
	}
	if msg := positive(c.memoryLimit); msg != "" {
		bad("postgres.MemoryLimit %q: %s", c.memoryLimit, msg)
		c.memoryLimit = larger(DefaultMemoryLimit, c.memoryRequest)
	} else if limit, request := resource.MustParse(c.memoryLimit), resource.MustParse(c.memoryRequest); limit.Cmp(request) < 0 {
		bad("postgres.MemoryLimit %q is below the memory request %q", c.memoryLimit, c.memoryRequest)
		c.memoryLimit = c.memoryRequest
	}
	if !identifier.MatchString(c.database) {
		bad("postgres.DatabaseName %q: want a lower-case PostgreSQL identifier (a-z, 0-9, _; at most 63)", c.database)
		c.database = "invalid"
	}
	if !identifier.MatchString(c.user) {
		bad("postgres.User %q: want a lower-case PostgreSQL identifier (a-z, 0-9, _; at most 63)", c.user)
		c.user = d.user
	}
	if c.passwordLength < MinPasswordLength {
		bad("postgres.PasswordLength %d: want at least %d", c.passwordLength, MinPasswordLength)
		c.passwordLength = d.passwordLength
	}
	return out
}

// positive explains why q is not a quantity above zero, or returns "".
func positive(q string) string {
	v, err := resource.ParseQuantity(q)
	switch {
	case err != nil:
		return "not a quantity (such as 500m, 1Gi)"
	case v.Sign() <= 0:
		return "must be above zero"
	}
	return ""
}

// larger returns the larger of two valid quantities.
func larger(a, b string) string {
	qa, qb := resource.MustParse(a), resource.MustParse(b)
	if qb.Cmp(qa) > 0 {
		return b
	}
	return a
}
