package sluice_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"sluice.dev/clients/go/sluice"
	"sluice.dev/clients/go/sluicev1"
)

// Drives a running server (SLUICE_TARGET; tests/e2e/clients/test_other_languages.py
// starts one).
func dial(t *testing.T) *sluice.Client {
	target := os.Getenv("SLUICE_TARGET")
	if target == "" {
		t.Fatal("SLUICE_TARGET names the server to test")
	}
	client, err := sluice.Dial(target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	return client
}

func TestUploadWatchSearch(t *testing.T) {
	client := dial(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	kb, err := client.CreateKnowledgeBase(ctx, &sluicev1.CreateKnowledgeBaseRequest{Name: "go-client"})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "valve.md")
	line := "The Quokka valve closes when its lever is turned twice to the left.\n"
	if err := os.WriteFile(path, []byte(strings.Repeat(line, 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	knowledge, err := client.UploadFile(ctx, path, &sluicev1.FileHeader{KnowledgeBaseId: kb.Id}, 1024)
	if err != nil {
		t.Fatal(err)
	}
	if knowledge.FileName != "valve.md" {
		t.Fatalf("file name %q", knowledge.FileName)
	}
	last, err := client.Watch(ctx, &sluicev1.WatchSpansRequest{KnowledgeId: knowledge.Id}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if last.GetType() != sluicev1.WatchEventType_WATCH_EVENT_TYPE_END ||
		last.GetParseStatus() != sluicev1.ParseStatus_PARSE_STATUS_COMPLETED {
		t.Fatalf("the watch ended with %v", last)
	}
	results, err := client.SearchChunks(ctx, &sluicev1.SearchRequest{
		Query: "Quokka valve lever", KnowledgeBaseIds: []string{kb.Id},
	})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, hit := range results {
		found = found || hit.KnowledgeId == knowledge.Id && strings.Contains(hit.Content, "Quokka")
	}
	if !found {
		t.Fatalf("the upload is not among %d results", len(results))
	}

	// The same bytes again: ALREADY_EXISTS naming the knowledge that holds them.
	_, err = client.UploadFile(ctx, path, &sluicev1.FileHeader{KnowledgeBaseId: kb.Id}, 0)
	var duplicate *sluice.Error
	if !errors.As(err, &duplicate) || duplicate.Code != codes.AlreadyExists ||
		len(duplicate.Resources) != 1 || duplicate.ExistingKnowledge.GetId() != knowledge.Id {
		t.Fatalf("a duplicate upload answered %v", err)
	}
}

func TestBadRequestDetails(t *testing.T) {
	client := dial(t)
	_, err := client.CreateKnowledgeBase(context.Background(), &sluicev1.CreateKnowledgeBaseRequest{})
	var refused *sluice.Error
	if !errors.As(err, &refused) {
		t.Fatalf("not a *sluice.Error: %v", err)
	}
	if refused.Code != codes.InvalidArgument || len(refused.FieldViolations) != 1 ||
		refused.FieldViolations[0].Field != "name" {
		t.Fatalf("refused with %+v", refused)
	}
}
