// Package helmchart writes a rendered release as a Helm chart whose values
// (images, replicas, resources, hosts, config entries) are typed by a
// generated values.schema.json that refuses unknown keys.
package helmchart
