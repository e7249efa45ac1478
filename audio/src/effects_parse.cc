// parse_effects: "gain -3; lowpass 4000; rate 16000" -> EffectChain (see loom/audio/effects.h).
#include <string>
#include <string_view>

#include "loom/audio/effects.h"
#include "loom/codec/error.h"

namespace loom::audio {

EffectChain parse_effects(std::string_view text) {
  EffectChain chain;
  std::vector<std::string> words;  // of the effect being read
  std::string word;
  bool in_word = false;  // a word has started (possibly an empty quoted one: '')
  auto end_word = [&] {
    if (in_word) words.push_back(std::move(word));
    word.clear();
    in_word = false;
  };
  auto end_effect = [&] {
    end_word();
    if (words.empty()) return;
    Effect effect{std::move(words.front()), {}};
    effect.args.assign(std::make_move_iterator(words.begin() + 1), std::make_move_iterator(words.end()));
    chain.push_back(std::move(effect));
    words.clear();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\'' || c == '"') {
      const size_t close = text.find(c, i + 1);
      if (close == std::string_view::npos) {
        throw Error(ErrorCode::kInvalidInput, "effects",
                    std::string("unterminated ") + c + " quote at offset " + std::to_string(i) + " in \"" +
                        std::string(text) + "\"");
      }
      word.append(text.substr(i + 1, close - i - 1));
      in_word = true;
      i = close;
    } else if (c == ';' || c == '\n') {
      end_effect();
    } else if (c == ' ' || c == '\t' || c == '\r') {
      end_word();
    } else {
      word.push_back(c);
      in_word = true;
    }
  }
  end_effect();
  return chain;
}

}  // namespace loom::audio
