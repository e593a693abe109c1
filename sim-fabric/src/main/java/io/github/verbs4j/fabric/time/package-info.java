/**
 * Time: per-node clocks (wall or modelled), the scheduler providers use for timers, and the link
 * model that turns a route and a frame size into a modelled arrival time.
 */
package io.github.verbs4j.fabric.time;
