/** Roost's Java client: a device on the WebSocket protocol, and the REST API for back ends. */
package io.roost.client;
