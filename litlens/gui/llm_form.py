"""The LLM rows of a settings dialog: backend, model, server URL and API-key variable."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QFormLayout, QLineEdit

BACKENDS = ("transformers", "gguf", "openai")


class LLMFields:
    """Adds the four rows to ``form``; the server rows are enabled only for the openai backend."""

    def __init__(self, form: QFormLayout, settings: dict | None = None):
        settings = settings or {}
        self.backend_box = QComboBox()
        for backend in BACKENDS:
            self.backend_box.addItem(backend, backend)
        if settings.get("backend"):
            self.backend_box.setCurrentIndex(max(0, self.backend_box.findData(settings["backend"])))
        self.model_edit = QLineEdit(settings.get("model") or "")
        self.model_edit.setPlaceholderText("model id, local folder or .gguf file (empty: the packaged small model)")
        self.url_edit = QLineEdit(settings.get("base_url") or "")
        self.url_edit.setPlaceholderText("http://127.0.0.1:8000/v1 (OpenAI-compatible server)")
        self.key_edit = QLineEdit(settings.get("api_key_env") or "")
        self.key_edit.setPlaceholderText("name of the environment variable holding the API key")
        form.addRow("LLM backend:", self.backend_box)
        form.addRow("Model:", self.model_edit)
        form.addRow("Server URL:", self.url_edit)
        form.addRow("API key variable:", self.key_edit)

    def enable(self, llm: bool = True) -> None:
        server = llm and self.backend_box.currentData() == "openai"
        self.backend_box.setEnabled(llm)
        self.model_edit.setEnabled(llm)
        self.url_edit.setEnabled(server)
        self.key_edit.setEnabled(server)

    def values(self) -> dict[str, str]:
        """backend, model, base_url, api_key_env ("" when a field is empty)."""
        return {"backend": self.backend_box.currentData(), "model": self.model_edit.text().strip(),
                "base_url": self.url_edit.text().strip(), "api_key_env": self.key_edit.text().strip()}


def ask_then_run(window, task: str, dialog_class, settings_attr: str, make_work, settings: dict | None = None) -> bool:
    """Show ``dialog_class`` with the window's last settings (unless ``settings`` are given), keep its
    answer in ``window.<settings_attr>`` and start ``make_work(project, book_id, settings)`` in the
    background as ``task``. False when no book is open or the dialog is cancelled."""
    from PySide6.QtWidgets import QDialog

    session = window.state.session
    if session is None:
        window.show_error("Open a book first.")
        return False
    if settings is None:
        dialog = dialog_class(window, getattr(window, settings_attr))
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return False
        settings = dialog.settings()
    setattr(window, settings_attr, settings)
    window.runner.start(task, make_work(session.path, session.book_id, settings))
    return True
