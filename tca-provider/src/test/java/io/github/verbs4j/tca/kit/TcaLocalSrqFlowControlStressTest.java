package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.KitEnvironment;
import io.github.verbs4j.verbs.conformance.SrqFlowControlStressConformance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link SrqFlowControlStressConformance} on the tca provider, every rank in this JVM on the local fabric,
 * under the {@link Peach2OnlyAudit}.
 */
@ExtendWith(Peach2OnlyAudit.class)
public class TcaLocalSrqFlowControlStressTest extends SrqFlowControlStressConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.LOCAL;
  }
}
