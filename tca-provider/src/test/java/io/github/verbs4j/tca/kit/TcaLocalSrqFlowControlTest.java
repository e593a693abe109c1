package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.KitEnvironment;
import io.github.verbs4j.verbs.conformance.SrqFlowControlConformance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link SrqFlowControlConformance} on the tca provider, every rank in this JVM on the local fabric,
 * under the {@link Peach2OnlyAudit}.
 */
@ExtendWith(Peach2OnlyAudit.class)
public class TcaLocalSrqFlowControlTest extends SrqFlowControlConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.LOCAL;
  }
}
