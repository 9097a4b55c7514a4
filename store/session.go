package store

// Agent sessions (SPEC §5). The buckets, under the tree drawn in schema.go:
//
//	sessions/   <ses_id> -> Session JSON
//	questions/  <q_id> -> Question JSON
//	trace/      <ses_id>/ (one nested bucket per session) <seq BE> -> TraceEvent JSON
var (
	bucketSessions  = []byte("sessions")
	bucketQuestions = []byte("questions")
	bucketTrace     = []byte("trace")

	sessionBuckets = [][]byte{bucketSessions, bucketQuestions, bucketTrace}
)
