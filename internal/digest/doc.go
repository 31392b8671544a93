// Package digest computes the keyed digests (HMAC-SHA256) that let plans
// and pod templates compare values, Secret values among them, without
// recording them.
package digest
