package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.PortEventConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@link PortEventConformance} on the tca provider, both ranks in this JVM on the local fabric,
 * under the {@link Peach2OnlyAudit}. */
@ExtendWith(Peach2OnlyAudit.class)
public class TcaLocalPortEventTest extends PortEventConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.LOCAL;
  }
}
