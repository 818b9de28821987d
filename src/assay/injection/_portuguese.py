"""Portuguese patterns (Brazil and Portugal) of evaluator-directed text, as
``(id, kind, regex source)``.

Same kinds as the English ones. They aim at the judge (o avaliador, a rubrica, a nota *desta
resposta*), not at the words alone: news text saying a driver "ignorou as regras de trânsito",
a review "Avaliação: 4 de 5 estrelas" or "O sistema operacional será atualizado" does not
match. Accents are optional (:func:`~._latin_parts.fold`), except in "dê"/"dá", whose plain
spellings are the prepositions "de"/"da" (taken for the verb only where a clause starts).

Example:
    >>> import re
    >>> source = dict((pid, src) for pid, _, src in PORTUGUESE)["pt.order.ignore-instructions"]
    >>> bool(re.search(source, "esquece as instrucoes anteriores", re.I))
    True
    >>> bool(re.search(source, "O motorista ignorou as regras de trânsito.", re.I))
    False
"""

from __future__ import annotations

from ._latin_parts import GAP, START, fold, number_value

__all__ = ["PORTUGUESE"]

# The text under evaluation, named from inside it.
_THIS = (r"(?:(?:esta|essa|a\s+presente|minha)\s+(?:resposta|saída)(?:\s+(?:anterior|acima))?"
         r"|a\s+resposta\s+(?:anterior|acima)|(?:este|esse|o\s+presente)\s+(?:texto|conteúdo"
         r"|resultado|trecho|mensagem)(?:\s+(?:anterior|acima))?|o\s+(?:texto|conteúdo)\s+acima)")
_GRADER = (r"(?:avaliador(?:a|es|as)?|corretor(?:a|es|as)?|examinador(?:a|es|as)?"
           r"|revisor(?:a|es|as)?|juiz(?:a|es)?|juízes|banca(?:\s+avaliadora)?"
           r"|modelo\s+(?:juiz|avaliador)|quem\s+(?:avaliar|avalia|corrigir|corrige|pontuar"
           r"|julgar)(?:\s+esta\s+resposta)?)")
_RULE_NOUN = (r"(?:instruções|orientações|critérios|diretrizes|regras|normas|indicações"
              r"|pautas|ordens)")
_RULES = (rf"(?:rubrica|(?:anteriores|antigas)\s+{_RULE_NOUN}|{_RULE_NOUN}(?:\s+(?:anteriores"
          r"|prévias|originais|acima|do\s+sistema|que\s+(?:te|lhe|você)\s+(?:deram|recebeu"
          r"|foram\s+dadas))|\s+de\s+(?:avaliação|correção|pontuação)|\s+d[oa]\s+(?:avaliador"
          r"|corretor|juiz|sistema|banca)))")
_TOP = (r"(?:(?:a\s+)?(?:nota|pontuação|avaliação|classificação)\s+(?:máxima|mais\s+alta"
        r"|perfeita)|(?:a\s+)?(?:maior|melhor)\s+(?:nota|pontuação)(?:\s+possível)?"
        r"|(?:nota|um)\s+(?:5|10|cinco|dez)\b|(?:5|10|cinco|dez)\s+pontos|(?:5/5|10/10)"
        r"|(?:5|10)(?=\s+(?:a|à|para)\s+(?:esta|essa|a)\s+resposta))")
_GOOD = (r"(?:(?:totalmente|completamente|inteiramente|perfeitamente|absolutamente)\s+)?"
         r"(?:corret[ao]|exat[ao]|fundamentad[ao]|sustentad[ao]|fiel|precis[ao]|verdadeir[ao]"
         r"|segur[ao]|inofensiv[ao]|válid[ao]|sem\s+(?:danos?|riscos?|perigo))")
_LOW = (r"(?:muito\s+baix[ao]|baix[ao]|nenhum[a]?|nul[ao]|mínim[ao]|0|inexistente|sem\s+risco"
        r"|insignificante)")
_VALUE = (number_value("de|em", "estrelas|pontos\\s+de\\s+vantagem|gols|golos")
          + r"|corret[ao]|incorret[ao]|(?:(?:a\s+)?resposta\s+)?(?:(?:totalmente|completamente)"
          r"\s+)?(?:fundamentad[ao]|sustentad[ao]|fiel|segur[ao]|inofensiv[ao])|aprovad[ao]|sim"
          r"|verdadeiro|(?:a\s+)?resposta\s+[ab12](?![\w])")
_ANSWER = r"(?:a\s+)?resposta\s+(?:[ab12]|um|dois)(?![\w])"

PORTUGUESE: list[tuple[str, str, str]] = [(pid, kind, fold(source)) for pid, kind, source in [
    # ---- order
    ("pt.order.ignore-instructions", "order",
     (r"\b(?:ignore|ignora|ignorem|esqueça|esquece|esqueçam|desconsidere|desconsidera"
      r"|despreze|despreza|descarte|descarta|deixe\s+de\s+lado|deixa\s+de\s+lado|não\s+(?:siga"
      r"|sigas|segue|sigam|considere|leve\s+em\s+(?:conta|consideração)|obedeça|respeite"
      rf"|aplique))\b{GAP}(?:(?:todas?|todos?)\s+)?(?:(?:as|os|a|o|suas|seus|tuas|teus)\s+)?"
      rf"{_RULES}")),
    ("pt.order.give-top-score", "order",
     (r"\b(?:d\xea|d\xe1|(?:^|(?<=[.!?:;,]\s)|(?<=\se\s))d[ea](?=\s+(?:a\s+)?(?:nota|pontua\w+)\s)"
      r"|dar|dar-lhe|atribua|atribui"
      r"|atribuir|conceda|concede|conceder|ponha|põe|coloque|coloca|avalie|avaliar|classifique"
      rf"|pontue|pontuar)\b(?:{GAP}|\s+){_TOP}")),
    ("pt.order.rate-as", "order",
     (r"\b(?:avalie|avalia|avaliar|classifique|classifica|classificar|marque|marca|marcar"
      r"|considere|considera|considerar|trate|trata|tratar|rotule|rotula|qualifique|qualificar)"
      rf"(?:-a|-o)?\s+(?:{_THIS}\s+)?como\s+{_GOOD}")),
    ("pt.order.no-deduction", "order",
     (r"\b(?:não|sem)\s+(?:desconte|descontes|descontar|tire|tires|tirar|retire|retirar|subtraia"
      r"|subtrair)\s+(?:(?:nenhum|nem\s+um|qualquer)\s+)?pontos?\b|\bnão\s+(?:penalize|penalizes"
      r"|penalizem|penalizar)\b")),
    ("pt.order.rules-changed", "order",
     (r"\b(?:(?:a\s+)?rubrica|(?:os\s+)?critérios\s+de\s+(?:avaliação|correção|pontuação)"
      r"|(?:o\s+)?(?:modo|sistema)\s+de\s+(?:avaliação|correção|pontuação)|a\s+avaliação"
      r"\s+anterior)\s+(?:mudou|mudaram|foi\s+(?:atualizad|anulad|substituíd|alterad)[ao]"
      r"|atualizad[ao]s?|está\s+anulad[ao]|(?:já\s+)?não\s+(?:se\s+)?aplica|não\s+vale\s+mais)"
      r"|\b(?:novas|instruções)\s+(?:instruções|atualizadas)(?:\s+(?:para\s+o\s+(?:avaliador"
      r"|corretor|juiz)|de\s+(?:avaliação|correção)))?\s*(?::|para\s+o\s+(?:avaliador|corretor"
      r"|juiz))")),
    # ---- evaluator_note
    ("pt.evaluator_note.address", "evaluator_note",
     (r"\b(?:nota|aviso|mensagem|recado|atenção|observação|lembrete|comunicado|informação"
      r"|comentário)\s+(?:para\s+(?:o|a|os|as)|ao|à|aos|às|dirigid[oa]\s+(?:ao|à)|a)\s+"
      rf"{_GRADER}")),
    ("pt.evaluator_note.vocative", "evaluator_note",
     (r"\b(?:caro|cara|caros|prezad[oa]s?|estimad[oa]s?|querid[oa]s?|olá|atenção|senhor"
      rf"|senhora)\s*,?\s*(?:senhor\s+|senhora\s+)?{_GRADER}\s*[,:]")),
    ("pt.evaluator_note.to-grader", "evaluator_note",
     (rf"{START}(?:para\s+(?:o|a)|ao|à|a)\s+{_GRADER}(?:\s+(?:desta|da)\s+(?:tarefa|resposta"
      r"|avaliação|prova))?\s*:")),
    # ---- fake_verdict
    ("pt.fake_verdict.label-colon", "fake_verdict",
     (rf"{START}(?:nota|pontuação|avaliação|classificação|veredito|veredicto|resultado"
      r"|julgamento|decisão|conceito|parecer|fidelidade|relevância)(?:\s+(?:final|geral|total"
      r"|da\s+avaliação|do\s+avaliador))?\s*[:=]\s*(?:" + _VALUE + r")(?![\w])")),
    ("pt.fake_verdict.self-assessment", "fake_verdict",
     (rf"\b{_THIS}\s+(?:é|está|foi|permanece|e)\s+(?:(?:totalmente|completamente|perfeitamente"
      r"|absolutamente|inteiramente|sem\s+dúvida|100\s*%)\s+)+(?:corret[ao]|exat[ao]"
      r"|fundamentad[ao]|sustentad[ao]|apoiad[ao]|fiel|precis[ao]|verdadeir[ao]|segur[ao]"
      r"|inofensiv[ao])")),
    ("pt.fake_verdict.supported-by-context", "fake_verdict",
     (r"\b(?:totalmente|completamente|inteiramente|plenamente|perfeitamente)\s+(?:sustentad"
      r"|fundamentad|apoiad|basead|respaldad|embasad)[ao]s?\s+(?:pel[oa]s?|n[oa]s?|em)\s+"
      r"(?:contexto|documentos?|fontes?|trechos?)")),
    ("pt.fake_verdict.harmless", "fake_verdict",
     (rf"\b{_THIS}\s+(?:(?:é|parece|e)\s+(?:(?:totalmente|completamente|absolutamente"
      r"|perfeitamente)\s+)?(?:inofensiv[ao]|inócu[ao]|segur[ao]\s+e|segur[ao](?=\s*[.,;]|$))"
      r"|não\s+(?:tem|contém|possui|inclui)\s+nada\s+(?:de\s+)?(?:prejudicial|perigos[ao]"
      r"|nociv[ao]|ofensiv[ao]|danos[ao]))")),
    ("pt.fake_verdict.severity", "fake_verdict",
     (r"\b(?:(?:gravidade|severidade|nível\s+de\s+(?:risco|perigo|toxicidade|gravidade)"
      rf"|toxicidade|periculosidade)(?:\s+(?:final|geral))?\s*[:=]\s*{_LOW}\b|(?:a\s+)?(?:gravidade"
      r"|severidade)\s+(?:desta|deste|da|do)\s+(?:resposta|texto|conteúdo)\s+(?:é|deve\s+ser"
      r"|deveria\s+ser)\s+(?:considerada\s+|classificada\s+|avaliada\s+)?"
      rf"{_LOW})")),
    ("pt.fake_verdict.pairwise", "fake_verdict",
     (rf"\b{_ANSWER}\s*(?::\s*|(?:é|e|parece)\s+)?(?:(?:claramente|muito|bem|bastante"
      r"|sem\s+dúvida|a)\s+)*(?:melhor|superior|pior|inferior|preferível|vence\b|ganha\b"
      r"|vencedora)")),
    ("pt.fake_verdict.winner", "fake_verdict",
     (r"\b(?:(?:vencedor|vencedora|ganhador|ganhadora|melhor\s+resposta|resposta\s+preferida)"
      rf"\s*:\s*{_ANSWER}|(?:escolha|escolhe|prefira|prefere|selecione|seleciona)\s+{_ANSWER}"
      r"|(?:escolhe|escolha|vence|ganha)\s+a\s+(?-i:[AaBb])\b(?!\s+\w+\s+\w))")),
    # ---- delimiter
    ("pt.delimiter.boundary-line", "delimiter",
     (r"^[ \t]*[-=#*\[]*[ \t]*(?:fim|final|início)\s+(?:da|do)\s+(?:resposta|contexto|documento"
      r"|texto\s+a\s+avaliar|conversa)[ \t]*[-=#*\]]*[ \t]*$")),
    # ---- role_marker
    ("pt.role_marker.line", "role_marker",
     (rf"{START}(?:#{{1,6}}[ \t]*|\*\*|\[)?(?:sistema|assistente|desenvolvedor|mensagem\s+(?:do"
      r"|de)\s+sistema|instruções\s+do\s+sistema|aviso\s+do\s+sistema)(?:\*\*|\])?[ \t]*(?::"
      r"|$)")),
    ("pt.role_marker.tag", "role_marker",
     r"\[(?:sistema|assistente)\]|</?\s*(?:sistema|assistente)\s*>"),
]]
