package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.KitEnvironment;
import io.github.verbs4j.verbs.conformance.MultiRankConformance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link MultiRankConformance} on the tca provider, every rank in this JVM on the local fabric,
 * under the {@link Peach2OnlyAudit}.
 */
@ExtendWith(Peach2OnlyAudit.class)
public class TcaLocalMultiRankTest extends MultiRankConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.LOCAL;
  }
}
