package bench

import "testing"

const scrapeBefore = `# HELP apiserver_request_total Counter of apiserver requests
# TYPE apiserver_request_total counter
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="configmaps",scope="resource",subresource="",verb="APPLY",version="v1"} 10
apiserver_request_total{code="200",component="",dry_run="",group="",resource="",scope="",subresource="/readyz",verb="GET",version=""} 62
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="",scope="",subresource="apis",verb="GET",version=""} 3
apiserver_request_total{code="200",component="apiserver",dry_run="",group="apps",resource="deployments",scope="resource",subresource="status",verb="PUT",version="v1"} 4
apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="",verb="POST",version="v1"} 4
apiserver_request_total_other{code="200"} 99
`

const scrapeAfter = `apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="configmaps",scope="resource",subresource="",verb="APPLY",version="v1"} 110
apiserver_request_total{code="200",component="",dry_run="",group="",resource="",scope="",subresource="/readyz",verb="GET",version=""} 70
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="",scope="",subresource="apis",verb="GET",version=""} 4
apiserver_request_total{code="200",component="apiserver",dry_run="All",group="",resource="configmaps",scope="resource",subresource="",verb="APPLY",version="v1"} 5
apiserver_request_total{code="200",component="apiserver",dry_run="",group="apps",resource="deployments",scope="resource",subresource="status",verb="PUT",version="v1"} 9
apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="",verb="POST",version="v1"} 9
`

func TestClientRequestsCountsTheClientsSeriesOnly(t *testing.T) {
	before, err := parseRequests([]byte(scrapeBefore))
	if err != nil {
		t.Fatal(err)
	}
	after, err := parseRequests([]byte(scrapeAfter))
	if err != nil {
		t.Fatal(err)
	}
	// 100 applies, 5 dry-run applies (a new series) and 1 discovery read;
	// health checks, status updates and pods are not the client's.
	if got, want := clientRequests(before, after), 106.0; got != want {
		t.Errorf("clientRequests = %v, want %v", got, want)
	}
}

func TestParseRequestsRefusesAScrapeWithoutTheCounter(t *testing.T) {
	if _, err := parseRequests([]byte("up 1\n")); err == nil {
		t.Error("parseRequests of a scrape without apiserver_request_total: no error")
	}
}

func TestParseLabelsReadsEscapedQuotes(t *testing.T) {
	got, err := parseLabels(`a="x\"y",b=""`)
	if err != nil {
		t.Fatal(err)
	}
	if got["a"] != `x"y` || got["b"] != "" || len(got) != 2 {
		t.Errorf(`parseLabels(a="x\"y",b="") = %v`, got)
	}
}
