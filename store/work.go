package store

// Work packets (SPEC §5). The buckets, under the tree drawn in schema.go:
//
//	packets/       <pkt_id> -> Packet JSON
//	packet_queue/  queue index of claimable packets
//	artifacts/     published artifacts
var (
	bucketPackets     = []byte("packets")
	bucketPacketQueue = []byte("packet_queue")
	bucketArtifacts   = []byte("artifacts")

	workBuckets = [][]byte{bucketPackets, bucketPacketQueue, bucketArtifacts}
)
