package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.DataIntegrityConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/**
 * {@link DataIntegrityConformance} on the ib provider, rank 1 in a child JVM, over the netty fabric, with the
 * one engine thread for the JVM and the fabric's event loop doing all the work ({@code verbs.threading=shared}).
 */
public class IbNettySharedDataIntegrityIT extends DataIntegrityConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.NETTY_2PROC_SHARED;
  }
}
