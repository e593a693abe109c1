package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.KitEnvironment;
import io.github.verbs4j.verbs.conformance.MemoryAccountingConformance;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@link MemoryAccountingConformance} on the tca provider, in this JVM on the local fabric, under the
 * {@link Peach2OnlyAudit}. */
@ExtendWith(Peach2OnlyAudit.class)
public class TcaLocalMemoryAccountingTest extends MemoryAccountingConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.LOCAL;
  }
}
