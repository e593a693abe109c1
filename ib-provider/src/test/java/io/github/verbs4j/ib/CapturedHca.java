package io.github.verbs4j.ib;

import io.github.verbs4j.ib.engine.IbParams;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.Device;
import io.github.verbs4j.verbs.NodeType;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.TransportType;
import io.github.verbs4j.verbs.config.VerbsConfig;
import io.github.verbs4j.verbs.spi.runtime.Threading;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * An engine test's HCA: an ib context of LID 1 on a {@link CapturePort} in {@code invoker}
 * threading (the test's own calls run the engine), a PD and a 256-entry CQ; objects the test
 * {@link #track}s are closed in reverse order before them.
 */
final class CapturedHca implements AutoCloseable {
  final CapturePort port = new CapturePort(1);
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  final IbContext ctx;
  final ProtectionDomain pd;
  final CompletionQueue cq;
  private final List<AutoCloseable> open = new ArrayList<>();

  /** @param params the device's parameters; threading is set to {@code invoker} */
  CapturedHca(IbParams.Builder params) {
    IbParams p = params.threading(Threading.INVOKER).build();
    ctx = new IbContext(new Device("sim_ib0", "ib", NodeType.CA, TransportType.IB, 1), VerbsConfig.of(Map.of()),
        IbProvider.deviceAttr(p, 1), p, port, null, null, registry, null);
    pd = ctx.allocPd();
    cq = ctx.createCq(256, null, 0);
    drainEvents();
  }

  <T extends AutoCloseable> T track(T c) {
    open.add(c);
    return c;
  }

  void untrack(AutoCloseable c) {
    open.remove(c);
  }

  /** Drops the async events raised so far (PORT_ACTIVE at open, say). */
  void drainEvents() {
    while (ctx.pollAsyncEvent(Duration.ZERO).isPresent()) {
      // events of an earlier step
    }
  }

  @Override
  public void close() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
    cq.close();
    pd.close();
    ctx.close();
  }
}
