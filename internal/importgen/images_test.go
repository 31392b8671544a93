package importgen

import "testing"

func TestImageNamesComeFromTheRepository(t *testing.T) {
	im := newImageNames()
	tests := []struct{ ref, want string }{
		{"us-docker.pkg.dev/shop/frontend:v1", "frontend"},
		{"us-docker.pkg.dev/shop/frontend:v1", "frontend"},
		{"other.example/frontend:v2", "frontend-v2"},
		{"other.example/frontend:v2@sha256:" + "0000000000000000000000000000000000000000000000000000000000000001", "frontend-2"},
		{"localhost:5000/Redis_Cache", "redis-cache"},
		{"docker.io/library/nginx@sha256:" + "0000000000000000000000000000000000000000000000000000000000000002", "nginx"},
	}
	for _, tt := range tests {
		if got := im.name(tt.ref); got != tt.want {
			t.Errorf("name(%q) = %q, want %q", tt.ref, got, tt.want)
		}
	}
}
