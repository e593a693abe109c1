package io.github.verbs4j.examples.perftest;

import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WrOpcode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ib_atomic_lat}: one-sided 8-byte atomics on the server's buffer, FETCH_AND_ADD by default
 * or CMP_AND_SWAP with {@code -A}. The client posts one, busy-polls (with back-off) the send CQ and
 * repeats. Reports the full operation time.
 */
@Command(name = "atomic_lat", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Atomic latency, like perftest's ib_atomic_lat. Runs on 2 ranks: rank 0 operates on rank 1's "
        + "memory and prints the report.", "Reported latency is the full round trip (one atomic)."})
public final class AtomicLat extends PerftestProgram {
  /** perftest's atomic types. */
  public enum AtomicType {
    /** Fetch and add 1. */
    FETCH_AND_ADD,
    /** Compare (with 0) and swap (with 1). */
    CMP_AND_SWAP
  }

  @Option(names = {"-A", "--atomic_type"}, paramLabel = "TYPE", defaultValue = "FETCH_AND_ADD",
      description = "Type of atomic operation: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  AtomicType type = AtomicType.FETCH_AND_ADD;

  @Override
  protected Verb verb() {
    return Verb.ATOMIC;
  }

  @Override
  protected boolean bandwidth() {
    return false;
  }

  @Override
  protected long defaultSize() {
    return 8;
  }

  @Override
  protected String atomicType() {
    return type.name();
  }

  @Override
  protected void measure(Run run) {
    if (!run.client) {
      return;
    }
    Endpoint ep = run.ep;
    int iters = run.settings.iterations();
    SendWr wr = new SendWr().sge(ep.mr, 0, 8).signaled(true);
    if (type == AtomicType.FETCH_AND_ADD) {
      wr.opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).atomic(ep.remote().vaddr(), ep.remote().rkey(), 1, 0);
    } else {
      wr.opcode(WrOpcode.ATOMIC_CMP_AND_SWP).atomic(ep.remote().vaddr(), ep.remote().rkey(), 0, 1);
    }
    for (int scnt = 0; scnt < iters; scnt++) {
      run.timings.posted(scnt);
      ep.qp.postSend(wr.wrId(scnt));
      ep.await(ep.sendCq, run.side(), scnt + 1, scnt);
      run.progress(scnt + 1);
    }
  }
}
