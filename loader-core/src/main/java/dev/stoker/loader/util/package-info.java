/**
 * Small helpers every other package may use: closing several resources in one go
 * ({@link dev.stoker.loader.util.Closer}). Imports nothing from the rest of Stoker.
 */
package dev.stoker.loader.util;
