package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.KitEnvironment;
import io.github.verbs4j.verbs.conformance.LossyLinkConformance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link LossyLinkConformance} on the tca provider, rank 1 in a child JVM, over the netty fabric: the PEACH2 links' data link layer
 * replays what the fabric loses; {@link LinkReplayAudit} checks that it did (the boards of this JVM
 * replayed frames, failed LCRCs and discarded duplicates). Netty's leak detection samples here
 * ({@link SampledLeakDetection}).
 */
@ExtendWith({LinkReplayAudit.class, SampledLeakDetection.class})
public class TcaNettyLossyLinkIT extends LossyLinkConformance {
  @Override
  protected KitEnvironment environment() {
    return guarded(TcaKit.NETTY_2PROC);
  }
}
