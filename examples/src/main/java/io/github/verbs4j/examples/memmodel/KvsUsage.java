package io.github.verbs4j.examples.memmodel;

import io.github.verbs4j.examples.common.FabricNodes;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.JobChannel;
import io.github.verbs4j.verbs.Context;
import java.time.Duration;
import java.util.Optional;

/**
 * What one rank holds of the job's key-value store, and what the coordinator holds (seed 003
 * §2.3.6: the root holds every pair at a fixed size; §3.7: each pair at the node its key hashes to,
 * at its own size; {@code verbs.fabric.kvs}). Bytes are the fabric's model of a pair: key, value
 * and 8 B. Not part of the {@code verbs4j.memory.bytes} meters: the store is the fabric's.
 *
 * @param readable whether the provider exposes its fabric node (else nothing was read)
 * @param bytes the bytes of the pairs this rank holds
 * @param pairs the pairs it holds
 * @param coordinatorBytes the coordinator's bytes, read by one rank only (else 0)
 * @param coordinatorPairs the coordinator's pairs, likewise
 */
record KvsUsage(boolean readable, long bytes, long pairs, long coordinatorBytes, long coordinatorPairs) {
  static final KvsUsage NONE = new KvsUsage(false, 0, 0, 0, 0);

  /**
   * @param ctx the rank's device
   * @param withCoordinator whether to ask the coordinator too (one rank of the job does)
   * @return this rank's share, and the coordinator's when asked
   */
  static KvsUsage of(Context ctx, boolean withCoordinator) {
    Optional<FabricNode> node = FabricNodes.of(ctx);
    if (node.isEmpty()) {
      return NONE;
    }
    JobChannel job = node.get().job();
    JobChannel.CoordinatorKvs c = withCoordinator ? job.coordinatorKvs(Duration.ofSeconds(30)) : null;
    return new KvsUsage(true, job.kvsBytes(), job.kvsPairs(), c == null ? 0 : c.bytes(), c == null ? 0 : c.pairs());
  }
}
