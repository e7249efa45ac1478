// loom: batch preprocessing and inspection of media files.
#include "app.h"

int main(int argc, char** argv) {
  const auto app = loom::cli::make_app();
  try {
    app->parser.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app->parser.exit(e);
    return code == 0 ? 0 : 2;  // 2: bad command line, as most Unix tools
  }
  return app->run();
}
