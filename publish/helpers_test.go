package publish_test

import "github.com/pynenc/piceli/artifact"

func artifactOptions() artifact.RegistryOptions { return artifact.RegistryOptions{} }
