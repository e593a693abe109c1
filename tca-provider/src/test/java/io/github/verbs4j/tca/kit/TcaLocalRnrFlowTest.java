package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.RnrFlowConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@link RnrFlowConformance} on the tca provider, both ranks in this JVM on the local fabric,
 * under the {@link Peach2OnlyAudit}. */
@ExtendWith(Peach2OnlyAudit.class)
public class TcaLocalRnrFlowTest extends RnrFlowConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.LOCAL;
  }
}
