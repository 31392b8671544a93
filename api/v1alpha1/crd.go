package v1alpha1

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CRD is the CustomResourceDefinition of Release, with the schema the API
// server validates Releases against, the status subresource and the
// printer columns `kubectl get releases` shows.
func CRD() *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: Resource + "." + Group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: Group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: Resource, Singular: Singular, Kind: Kind, ListKind: ListKind,
				Categories: []string{"piceli"},
			},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: Version, Served: true, Storage: true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				AdditionalPrinterColumns: []apiextensionsv1.CustomResourceColumnDefinition{
					{Name: "Source", Type: "string", JSONPath: ".status.sourceRevision", Description: "the source's latest revision"},
					{Name: "Plan", Type: "string", JSONPath: ".status.plan.hash", Description: "the plan of that revision"},
					{Name: "State", Type: "string", JSONPath: ".status.state"},
					{Name: "Drifted", Type: "string", JSONPath: `.status.conditions[?(@.type=="Drifted")].status`, Description: "whether live objects differ from the applied revision"},
					{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"},
				},
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: releaseSchema()},
			}},
		},
	}
}

func releaseSchema() *apiextensionsv1.JSONSchemaProps {
	return object("A release the Piceli controller delivers into its namespace.", map[string]apiextensionsv1.JSONSchemaProps{
		"apiVersion": str("APIVersion of the object."),
		"kind":       str("Kind of the object."),
		"metadata":   {Type: "object"},
		"spec":       *specSchema(),
		"status":     *statusSchema(),
	}, "spec")
}

func specSchema() *apiextensionsv1.JSONSchemaProps {
	s := object("Where revisions come from and who approves them.", map[string]apiextensionsv1.JSONSchemaProps{
		"source":          *sourceSchema(),
		"releaseName":     dnsLabel("The release's name as the published artifact names it; empty means the Release's name."),
		"targetNamespace": dnsLabel("The namespace the release writes to; empty means the Release's namespace."),
		"prune":           boolean("Delete objects an earlier revision created and this one no longer declares."),
		"stateSigners":    list("Signer lines (ed25519:BASE64 NAME) of laptops and runners whose runs are trusted.", str("")),
		"approve":         pattern("The hash of the approved plan.", `^sha256:[0-9a-f]{64}$`),
		"policy": *object("Approves plans within it without a person.", map[string]apiextensionsv1.JSONSchemaProps{
			"actions":    list("Plan actions allowed: create, update, adopt, replace, delete.", enum("", "create", "update", "adopt", "replace", "delete")),
			"maxObjects": integer("The most objects a plan may change; 0: no limit."),
		}, "actions"),
		"interval":     str("How often the source is checked, as a duration (1m, 30s); empty means 1m."),
		"suspend":      boolean("Stop planning and applying until cleared."),
		"readyTimeout": str("Each wave's readiness bound, as a duration; empty means 5m."),
		"onFailure":    enum("What a failed run does: stop (the default) or rollback (once).", "stop", "rollback"),
		"checks":       list("Checks run after every run's last wave.", *checkSchema()),
		"drift": *object("How the live objects of the applied revision are watched.", map[string]apiextensionsv1.JSONSchemaProps{
			"mode":     enum("report (the default) lists changed fields in status; correct also restores them; off compares nothing.", DriftModes...),
			"interval": str("How often the live objects are compared, as a duration; empty means the Release's interval."),
		}),
		"pin": *object("Holds the Release at a source revision it ran (piceli controller rollback); newer revisions are planned, not applied.", map[string]apiextensionsv1.JSONSchemaProps{
			"revision": bounded("A source revision the Release ran: REF@ID or ID.", 512),
			"reason":   bounded("Why it is pinned.", 1024),
			"by":       bounded("Who pinned it.", 256),
			"at":       dateTime("When."),
		}, "revision"),
	}, "source")
	return s
}

func checkSchema() *apiextensionsv1.JSONSchemaProps {
	port := integer("A port of the Service (its port, not the target port).")
	s := object("One check: exactly one of http and tcp.", map[string]apiextensionsv1.JSONSchemaProps{
		"name":    str(""),
		"timeout": str("One attempt's bound, as a duration; empty means the kind's default."),
		"retries": integer("More attempts after a failed one."),
		"http": *object("A request to a Service port.", map[string]apiextensionsv1.JSONSchemaProps{
			"service": dnsLabel(""), "port": port, "path": pattern("", "^/"),
			"expectStatus": integer("Default 200."), "bodyContains": str(""),
		}, "service", "port"),
		"tcp": *object("A connection to a Service port.", map[string]apiextensionsv1.JSONSchemaProps{
			"service": dnsLabel(""), "port": port,
		}, "service", "port"),
	}, "name")
	s.XValidations = apiextensionsv1.ValidationRules{{Rule: "has(self.http) != has(self.tcp)", Message: "a check is exactly one of http and tcp"}}
	return s
}

func sourceSchema() *apiextensionsv1.JSONSchemaProps {
	ref := *object("A Secret in the Release's namespace.", map[string]apiextensionsv1.JSONSchemaProps{"name": str("")}, "name")
	s := object("Exactly one of oci and git.", map[string]apiextensionsv1.JSONSchemaProps{
		"oci": *object("An artifact written by piceli publish; exactly one of tag, semver and digest.", map[string]apiextensionsv1.JSONSchemaProps{
			"url":       pattern("oci://HOST[:PORT]/REPOSITORY", `^oci://`),
			"tag":       str("A tag, re-resolved every interval."),
			"semver":    str("A semantic version range of tags."),
			"digest":    pattern("sha256: and 64 hex digits.", `^sha256:[0-9a-f]{64}$`),
			"insecure":  boolean("Talk plain HTTP to the registry."),
			"secretRef": ref,
		}, "url"),
		"git": *object("A Git repository; exactly one of branch, tag and commit.", map[string]apiextensionsv1.JSONSchemaProps{
			"url":       str("http://, https:// or ssh:// URL."),
			"branch":    str(""),
			"tag":       str(""),
			"commit":    pattern("40 hex digits.", `^[0-9a-f]{40}$`),
			"path":      str("The directory in the repository; empty means its root."),
			"secretRef": ref,
		}, "url"),
	})
	s.XValidations = apiextensionsv1.ValidationRules{{Rule: "has(self.oci) != has(self.git)", Message: "name exactly one source: oci or git"}}
	return s
}

func statusSchema() *apiextensionsv1.JSONSchemaProps {
	keep := true
	return &apiextensionsv1.JSONSchemaProps{
		Type: "object", Description: "What the controller last saw and did.",
		XPreserveUnknownFields: &keep,
	}
}

func object(desc string, props map[string]apiextensionsv1.JSONSchemaProps, required ...string) *apiextensionsv1.JSONSchemaProps {
	return &apiextensionsv1.JSONSchemaProps{Type: "object", Description: desc, Properties: props, Required: required}
}

func str(desc string) apiextensionsv1.JSONSchemaProps {
	return apiextensionsv1.JSONSchemaProps{Type: "string", Description: desc}
}

func pattern(desc, re string) apiextensionsv1.JSONSchemaProps {
	s := str(desc)
	s.Pattern = re
	return s
}

func bounded(desc string, n int64) apiextensionsv1.JSONSchemaProps {
	s := str(desc)
	s.MaxLength = &n
	return s
}

func dateTime(desc string) apiextensionsv1.JSONSchemaProps {
	s := str(desc)
	s.Format = "date-time"
	s.Nullable = true
	return s
}

func dnsLabel(desc string) apiextensionsv1.JSONSchemaProps {
	s := pattern(desc, `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	max := int64(63)
	s.MaxLength = &max
	return s
}

func enum(desc string, values ...string) apiextensionsv1.JSONSchemaProps {
	s := str(desc)
	for _, v := range values {
		s.Enum = append(s.Enum, apiextensionsv1.JSON{Raw: []byte(`"` + v + `"`)})
	}
	return s
}

func boolean(desc string) apiextensionsv1.JSONSchemaProps {
	return apiextensionsv1.JSONSchemaProps{Type: "boolean", Description: desc}
}

func integer(desc string) apiextensionsv1.JSONSchemaProps {
	min := 0.0
	return apiextensionsv1.JSONSchemaProps{Type: "integer", Description: desc, Minimum: &min}
}

func list(desc string, item apiextensionsv1.JSONSchemaProps) apiextensionsv1.JSONSchemaProps {
	return apiextensionsv1.JSONSchemaProps{Type: "array", Description: desc, Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &item}}
}
