package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.KitEnvironment;
import io.github.verbs4j.verbs.conformance.LossyLinkConformance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link LossyLinkConformance} on the tca provider, both ranks in this JVM on the local fabric: the PEACH2 links' data link layer
 * replays what the fabric loses; {@link LinkReplayAudit} checks that it did (the boards of this JVM
 * replayed frames, failed LCRCs and discarded duplicates).
 */
@ExtendWith(LinkReplayAudit.class)
public class TcaLocalLossyLinkTest extends LossyLinkConformance {
  @Override
  protected KitEnvironment environment() {
    return guarded(TcaKit.LOCAL);
  }
}
