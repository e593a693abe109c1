package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.KitEnvironment;
import io.github.verbs4j.verbs.conformance.LibibverbsDetailsConformance;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@link LibibverbsDetailsConformance} on the tca provider, both ranks in this JVM on the local fabric,
 * under the {@link Peach2OnlyAudit}. */
@ExtendWith(Peach2OnlyAudit.class)
public class TcaLocalLibibverbsDetailsTest extends LibibverbsDetailsConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.LOCAL;
  }
}
