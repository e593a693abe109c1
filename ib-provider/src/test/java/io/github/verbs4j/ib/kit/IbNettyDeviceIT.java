package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.DeviceConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link DeviceConformance} on the ib provider, rank 1 in a child JVM, over the netty fabric. */
public class IbNettyDeviceIT extends DeviceConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.NETTY_2PROC;
  }
}
