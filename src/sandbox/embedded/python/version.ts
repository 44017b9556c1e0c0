/** The CPython the embedded sandbox runs (just-bash's vendored Emscripten build); a test holds it to `sys.version`. */
export const EMBEDDED_PYTHON_VERSION = "3.13.2";
