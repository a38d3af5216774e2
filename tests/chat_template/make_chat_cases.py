#!/usr/bin/env python3
"""Renders chat templates with Hugging Face transformers (render_jinja_template, what
apply_chat_template(..., tokenize=False) calls) for ironbench's chat template test: every
*.jinja file of the given folders with each test conversation. Writes OUT_DIR/cases.json, a
list of {"template", "path", "conversation", "messages", "special_tokens",
"add_generation_prompt", "text" | "error"}; ironbench must render the same text, and must fail
where transformers fails.

Usage: make_chat_cases.py OUT_DIR TEMPLATE_DIR [TEMPLATE_DIR ...]"""
import json, pathlib, sys

from transformers.utils.chat_template_utils import render_jinja_template

SPECIAL_TOKENS = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>"}

CONVERSATIONS = {
    "one_user_turn": [{"role": "user", "content": "Hello! How are you today?"}],
    "system_and_user": [
        {"role": "system", "content": "  You are a terse assistant.\n"},
        {"role": "user", "content": "What is 2+2? Answer with 'one' \"word\"."},
    ],
    "multi_turn": [
        {"role": "user", "content": "Wie heißt du? 日本語 😀"},
        {"role": "assistant", "content": "I am a model.\nNice to meet you."},
        {"role": "user", "content": "Tell me a\tjoke  "},
    ],
    "long_history": [
        {"role": "system", "content": "Keep answers short."},
        {"role": "user", "content": "First question"},
        {"role": "assistant", "content": "First answer"},
        {"role": "user", "content": "Second question"},
        {"role": "assistant", "content": "Second answer"},
        {"role": "user", "content": "Third question, with {braces} and <tags>"},
    ],
    "tool_call": [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": "",
         "tool_calls": [{"type": "function", "function": {"name": "get_weather",
                                                         "arguments": {"city": "Paris", "days": 2, "units": None}}}]},
        {"role": "tool", "content": "{\"temp\": 21.5}"},
        {"role": "user", "content": "Thanks"},
    ],
}


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out = pathlib.Path(sys.argv[1])
    cases = []
    for folder in sys.argv[2:]:
        for path in sorted(pathlib.Path(folder).resolve().glob("*.jinja")):
            source = path.read_text(encoding="utf-8")
            for name, messages in CONVERSATIONS.items():
                for add_generation_prompt in (True, False):
                    case = {"template": path.stem, "path": str(path), "conversation": name, "messages": messages,
                            "special_tokens": SPECIAL_TOKENS, "add_generation_prompt": add_generation_prompt}
                    try:
                        rendered, _ = render_jinja_template(conversations=[json.loads(json.dumps(messages))],
                                                            chat_template=source,
                                                            add_generation_prompt=add_generation_prompt,
                                                            **SPECIAL_TOKENS)
                        case["text"] = rendered[0]
                    except Exception as error:  # transformers refuses: ironbench must refuse too
                        case["error"] = f"{type(error).__name__}: {error}"
                    cases.append(case)
    out.mkdir(parents=True, exist_ok=True)
    (out / "cases.json").write_text(json.dumps(cases, ensure_ascii=False, indent=1), encoding="utf-8")
    rendered = sum(1 for c in cases if "text" in c)
    print(f"{len(cases)} cases ({rendered} rendered, {len(cases) - rendered} refused by transformers)")


if __name__ == "__main__":
    main()
