"""Who wrote a thing, as a file format's header names its writer: an Emacs Lisp library's
``Author:``, an R package's ``"aut"`` person, an SPDX package's originator, an EPUB's author
(not its illustrator), a Project Gutenberg e-book's first line, an ABC tune's composer, a Pandoc
title block, a Creative Commons attribution, an Org file's header, a PDF's information (not its
Creator, the application), a LilyPond header and a copyright page's moral right; never a
maintainer, contributor, supplier, transcriber, producer, editor or illustrator."""

from __future__ import annotations

from tests.test_extraction_metadata import _fields


def test_a_lisp_librarys_author_and_an_r_packages_aut_person() -> None:
    lisp = (
        ";;; kiln-mode.el --- Kiln logs  -*- lexical-binding: t -*-\n\n"
        ";; Author: Ada Holm <ada@example.org>\n;; Maintainer: Tom Bell <tom@example.org>\n"
    )
    assert _fields(lisp) == {("kiln-mode", "author", "Ada Holm")}
    description = (
        "Package: kilnr\nTitle: Kiln Logs\nAuthors@R: c(\n"
        '    person("Jo", "Pike", role = "ctb"),\n'
        '    person("Noor", "Halse", email = "n@example.org",\n           role = c("aut", "cre"))\n'
        "  )\n"
    )
    assert _fields(description) == {("kilnr", "author", "Noor Halse")}


def test_an_spdx_originator_and_an_epubs_author_not_its_illustrator() -> None:
    sbom = (
        "PackageName: kilnd\nPackageSupplier: Organization: Brede Ltd\n"
        "PackageOriginator: Person: Cai Rees (cai@example.org)\n"
    )
    assert _fields(sbom) == {("kilnd", "author", "Cai Rees")}
    opf = (
        "<dc:title>Salt Pans of Brede</dc:title>\n"
        '<dc:creator opf:role="ill">Tom Bell</dc:creator>\n'
        '<dc:creator opf:role="aut">Ines Carrow</dc:creator>\n'
    )
    assert _fields(opf) == {("Salt Pans of Brede", "author", "Ines Carrow")}


def test_an_ebooks_first_line_a_tunes_composer_and_a_pandoc_title_block() -> None:
    ebook = (
        "The Project Gutenberg EBook of Brede Marsh, by Rhian Moss\n\n"
        "Produced by Jo Pike and the Online Distributed Proofreading Team\n"
    )
    assert _fields(ebook) == {("Brede Marsh", "author", "Rhian Moss")}
    tune = "X:4\nT:The Brede Hornpipe\nC:Cai Rees\nZ:Tom Bell\nK:G\n"
    assert _fields(tune) == {("The Brede Hornpipe", "composer", "Cai Rees")}
    pandoc = "% Kiln firing notes\n% Ada Holm; Noor Halse\n% 3 May 2022\n\nThanks to Jo Pike.\n"
    assert _fields(pandoc) == {
        ("Kiln firing notes", "author", "Ada Holm"),
        ("Kiln firing notes", "author", "Noor Halse"),
    }


def test_a_creative_commons_attribution_names_its_creator_not_its_editor() -> None:
    credit = (
        '"Brede mill at dawn" by Ines Carrow is licensed under CC BY-SA 4.0. Cropped by Tom Bell.\n'
    )
    assert _fields(credit) == {("Brede mill at dawn", "creator", "Ines Carrow")}


def test_an_org_header_a_pdfs_information_and_a_lilypond_header() -> None:
    org = "```org\n#+TITLE: Brede marsh walks\n#+AUTHOR: Ada Holm\n#+DATE: 2024-03-12\n```\n"
    assert _fields(org) == {("Brede marsh walks", "author", "Ada Holm")}
    pdf = (
        "```\n<<\n/Title (Brede harbour survey)\n/Author (Noor Halse)\n/Creator (Quill Writer 4)"
        "\n/Producer (Harl PDF 9.1)\n>>\n```\n"
    )
    assert _fields(pdf) == {("Brede harbour survey", "author", "Noor Halse")}  # not its Creator
    pdfinfo = (
        "Title:           Brede harbour survey\nAuthor:          Noor Halse\n"
        "Creator:         Microsoft® Word\nProducer:        Microsoft® Word\n"
    )
    assert _fields(pdfinfo) == {("Brede harbour survey", "author", "Noor Halse")}
    lilypond = (
        '\\header {\n  title = "Brede Hornpipe"\n  poet = "Jo Pike"\n  composer = "Cai Rees"\n}'
    )
    assert _fields(lilypond) == {("Brede Hornpipe", "composer", "Cai Rees")}


def test_a_copyright_pages_moral_right_names_the_books_author_not_its_illustrator() -> None:
    page = (
        "# Brede Marsh: copyright page\n\nText © Rhian Moss 2015\n\n"
        "The right of Tom Bell to be identified as the illustrator of this work has been "
        "asserted.\n\nThe right of Rhian Moss to be identified as the author of this work has "
        "been asserted by her in accordance with the Copyright, Designs and Patents Act 1988.\n"
    )
    assert _fields(page) == {("Brede Marsh", "author", "Rhian Moss")}
